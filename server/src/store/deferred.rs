//! Writes an ingesting transaction gathers and sends to the database together (issue #33, ADR
//! 0050): the ledger rows, messages, transitions, artifact rows and the task row a fold decided
//! on. Each statement sent is a round trip (on SQLite a hand-off to the driver's thread), so a
//! status update's three writes cost one instead of three.
//!
//! On SQLite the statements go as one SQL text (the driver runs them in order and numbers the
//! `?` parameters across them); on PostgreSQL as one statement whose writes are `WITH` clauses,
//! their `$n` parameters renumbered. A statement gathered here must not need its result (a
//! count, a row) and must not be read by anything that runs before [`Deferred::flush`]: a
//! PostgreSQL `WITH` gives its parts one snapshot, so no part sees another's rows, and no two
//! parts may change the same row.

use sea_orm::{ConnectionTrait, DatabaseBackend, DatabaseTransaction, DbErr, Statement, Value, Values};

/// Writes not sent yet, in order.
#[derive(Default)]
pub struct Deferred {
    statements: Vec<Statement>,
}

impl Deferred {
    pub fn push(&mut self, statement: Statement) {
        self.statements.push(statement);
    }

    /// Adds `other`'s statements after these.
    pub fn append(&mut self, mut other: Deferred) {
        self.statements.append(&mut other.statements);
    }

    pub fn len(&self) -> usize {
        self.statements.len()
    }

    pub fn is_empty(&self) -> bool {
        self.statements.is_empty()
    }

    /// Sends what is gathered, as one statement, or as few as keep each within
    /// [`MAX_PARAMETERS`].
    pub async fn flush(&mut self, tx: &DatabaseTransaction) -> Result<(), DbErr> {
        let backend = tx.get_database_backend();
        let mut part = Vec::new();
        let mut parameters = 0;
        for statement in std::mem::take(&mut self.statements) {
            let count = statement.values.as_ref().map_or(0, |values| values.0.len());
            if !part.is_empty() && parameters + count > MAX_PARAMETERS {
                send(tx, backend, std::mem::take(&mut part)).await?;
                parameters = 0;
            }
            parameters += count;
            part.push(statement);
        }
        send(tx, backend, part).await
    }
}

/// The most parameters one combined statement takes (PostgreSQL allows 65,535 in a statement;
/// SQLite counts them per statement of the text, up to 32,766).
const MAX_PARAMETERS: usize = 30_000;

async fn send(
    tx: &DatabaseTransaction,
    backend: DatabaseBackend,
    statements: Vec<Statement>,
) -> Result<(), DbErr> {
    if let Some(statement) = combine(backend, statements) {
        tx.execute_raw(statement).await?;
    }
    Ok(())
}

/// The statements as one: the only one alone, SQLite's joined, PostgreSQL's as `WITH` parts
/// of the last.
fn combine(backend: DatabaseBackend, mut statements: Vec<Statement>) -> Option<Statement> {
    if statements.len() <= 1 {
        return statements.pop();
    }
    let mut sql = String::new();
    let mut values: Vec<Value> = Vec::new();
    let last = statements.len() - 1;
    for (n, statement) in statements.into_iter().enumerate() {
        let part = if backend == DatabaseBackend::Postgres {
            shift_placeholders(&statement.sql, values.len())
        } else {
            statement.sql
        };
        match backend {
            DatabaseBackend::Postgres if n == 0 => sql.push_str(&format!("WITH w{n} AS ({part})")),
            DatabaseBackend::Postgres if n < last => sql.push_str(&format!(", w{n} AS ({part})")),
            DatabaseBackend::Postgres => sql.push_str(&format!(" {part}")),
            _ if n == 0 => sql.push_str(&part),
            _ => sql.push_str(&format!(";\n{part}")),
        }
        values.extend(statement.values.map(|v| v.0).unwrap_or_default());
    }
    Some(Statement::from_sql_and_values(backend, sql, Values(values)))
}

/// `sql` with each PostgreSQL parameter `$n` outside quotes renumbered `$(n + offset)`.
fn shift_placeholders(sql: &str, offset: usize) -> String {
    if offset == 0 {
        return sql.to_owned();
    }
    let mut out = String::with_capacity(sql.len() + 8);
    let mut quote: Option<char> = None;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            // A doubled quote inside a literal or identifier closes and reopens it: the same.
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) => {
                let mut digits = String::new();
                while let Some(d) = chars.next_if(char::is_ascii_digit) {
                    digits.push(d);
                }
                let n: usize = digits.parse().unwrap_or(0);
                out.push('$');
                out.push_str(&(n + offset).to_string());
                continue;
            }
            None => {}
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement(backend: DatabaseBackend, sql: &str, values: Vec<Value>) -> Statement {
        Statement::from_sql_and_values(backend, sql, values)
    }

    #[test]
    fn postgres_parameters_are_renumbered_outside_quotes() {
        assert_eq!(
            shift_placeholders(
                r#"UPDATE "t$1" SET a = $1, b = '$2 it''s', c = $10 WHERE d = $2"#,
                3
            ),
            r#"UPDATE "t$1" SET a = $4, b = '$2 it''s', c = $13 WHERE d = $5"#
        );
        assert_eq!(shift_placeholders("SELECT $1", 0), "SELECT $1");
    }

    #[test]
    fn postgres_writes_become_with_parts_of_the_last() {
        let pg = DatabaseBackend::Postgres;
        let combined = combine(
            pg,
            vec![
                statement(pg, "INSERT INTO a VALUES ($1, $2)", vec![1.into(), 2.into()]),
                statement(pg, "INSERT INTO b VALUES ($1)", vec![3.into()]),
                statement(pg, "UPDATE c SET x = $1 WHERE id = $2", vec![4.into(), 5.into()]),
            ],
        )
        .expect("one statement");
        assert_eq!(
            combined.sql,
            "WITH w0 AS (INSERT INTO a VALUES ($1, $2)), w1 AS (INSERT INTO b VALUES ($3)) \
             UPDATE c SET x = $4 WHERE id = $5"
        );
        assert_eq!(combined.values.expect("values").0.len(), 5);
    }

    #[test]
    fn sqlite_writes_are_joined_in_order() {
        let lite = DatabaseBackend::Sqlite;
        let combined = combine(
            lite,
            vec![
                statement(lite, "INSERT INTO a VALUES (?)", vec![1.into()]),
                statement(lite, "UPDATE c SET x = ?", vec![2.into()]),
            ],
        )
        .expect("one statement");
        assert_eq!(combined.sql, "INSERT INTO a VALUES (?);\nUPDATE c SET x = ?");
        assert_eq!(
            combined.values.expect("values").0,
            vec![Value::from(1), Value::from(2)]
        );
        assert!(combine(lite, Vec::new()).is_none());
    }
}
