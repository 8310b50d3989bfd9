//! CSV parts (`text/csv`) as a table: a small RFC 4180 parser (quoted fields, `""` escapes,
//! CRLF or LF records) and its view. The first row is the header.

use leptos::prelude::*;

/// Data rows shown at most (CSV rule); the rest are counted out in a note.
pub const MAX_CSV_ROWS: usize = 1000;

/// Parsed CSV: the records read, and whether more were left unread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvTable {
    /// Records in order; the first is the header.
    pub rows: Vec<Vec<String>>,
    /// True when the input had more than `max_records` records.
    pub truncated: bool,
}

/// Parses `input` as RFC 4180 CSV, keeping at most `max_records` records.
///
/// Lenient where the RFC is strict, so agent output always renders: a quote inside an
/// unquoted field is kept as text, text after a closing quote is appended, an unclosed quote
/// runs to the end, and a lone CR also ends a record. A final line break adds no record.
pub fn parse_csv(input: &str, max_records: usize) -> CsvTable {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut in_quotes = false;
    // Whether the current record has started; an empty trailing line is no record.
    let mut started = false;
    let mut chars = input.chars().peekable();
    while let Some(c) = chars.next() {
        if in_quotes {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => in_quotes = false,
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => {
                in_quotes = true;
                started = true;
            }
            ',' => {
                row.push(std::mem::take(&mut field));
                started = true;
            }
            '\r' | '\n' => {
                if c == '\r' && chars.peek() == Some(&'\n') {
                    chars.next();
                }
                if rows.len() == max_records {
                    return CsvTable {
                        rows,
                        truncated: true,
                    };
                }
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
                started = false;
            }
            _ => {
                field.push(c);
                started = true;
            }
        }
    }
    if started || !field.is_empty() || !row.is_empty() {
        if rows.len() == max_records {
            return CsvTable {
                rows,
                truncated: true,
            };
        }
        row.push(field);
        rows.push(row);
    }
    CsvTable {
        rows,
        truncated: false,
    }
}

/// A CSV part as a table with a header row; used by the part view.
#[component]
pub fn CsvView(text: String) -> impl IntoView {
    // The header plus MAX_CSV_ROWS data rows.
    let CsvTable { mut rows, truncated } = parse_csv(&text, MAX_CSV_ROWS + 1);
    if rows.is_empty() {
        return view! { <p class="content-note">"Empty CSV."</p> }.into_any();
    }
    let header = rows.remove(0);
    view! {
        <TableView header=header rows=rows/>
        {truncated.then(|| view! {
            <p class="content-note">{format!("Showing first {MAX_CSV_ROWS} rows.")}</p>
        })}
    }
    .into_any()
}

/// A plain table of text cells inside a horizontal scroller; shared by CSV and JSON tables.
#[component]
pub fn TableView(header: Vec<String>, rows: Vec<Vec<String>>) -> impl IntoView {
    view! {
        <div class="content-table-scroll">
            <table class="content-table">
                <thead>
                    <tr>{header.into_iter().map(|h| view! { <th scope="col">{h}</th> }).collect_view()}</tr>
                </thead>
                <tbody>
                    {rows
                        .into_iter()
                        .map(|row| {
                            view! {
                                <tr>{row.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}</tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn parse(input: &str) -> Vec<Vec<String>> {
        parse_csv(input, usize::MAX).rows
    }

    fn rows(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| r.iter().map(|c| (*c).to_owned()).collect())
            .collect()
    }

    #[test]
    fn csv_rule_plain_records_with_lf_and_crlf() {
        let want = rows(&[&["a", "b"], &["1", "2"]]);
        assert_eq!(parse("a,b\n1,2"), want);
        assert_eq!(parse("a,b\r\n1,2\r\n"), want);
        assert_eq!(parse("a,b\n1,2\n"), want);
        assert_eq!(parse("a,b\r1,2"), want);
    }

    #[test]
    fn csv_rule_quoted_fields_keep_commas_newlines_and_escaped_quotes() {
        assert_eq!(
            parse("\"a,b\",\"say \"\"hi\"\"\"\r\n\"line\r\nbreak\",x"),
            rows(&[&["a,b", "say \"hi\""], &["line\r\nbreak", "x"]])
        );
        assert_eq!(parse("\"\",\"\""), rows(&[&["", ""]]));
    }

    #[test]
    fn csv_rule_empty_fields_and_lines() {
        assert_eq!(parse(""), Vec::<Vec<String>>::new());
        assert_eq!(parse("\n"), rows(&[&[""]]));
        assert_eq!(parse(",\n"), rows(&[&["", ""]]));
        assert_eq!(parse("a,,c"), rows(&[&["a", "", "c"]]));
        assert_eq!(parse("a,"), rows(&[&["a", ""]]));
    }

    #[test]
    fn csv_rule_malformed_quotes_are_lenient() {
        assert_eq!(parse("a\"b,c"), rows(&[&["a\"b", "c"]]));
        assert_eq!(parse("\"ab\"cd,e"), rows(&[&["abcd", "e"]]));
        assert_eq!(parse("\"open,x\ny"), rows(&[&["open,x\ny"]]));
    }

    #[test]
    fn csv_rule_row_cap_reports_truncation() {
        let input = "h\n1\n2\n3\n";
        assert_eq!(
            parse_csv(input, 3),
            CsvTable {
                rows: rows(&[&["h"], &["1"], &["2"]]),
                truncated: true
            }
        );
        assert!(!parse_csv(input, 4).truncated);
        assert!(parse_csv("h\n1\n2\n3", 3).truncated);
        assert_eq!(parse_csv("a", 0).rows.len(), 0);
    }

    proptest! {
        #[test]
        fn csv_parser_never_panics(s in ".{0,300}") {
            let _ = parse_csv(&s, 1001);
        }

        #[test]
        fn csv_parser_never_panics_on_csv_like_input(s in "[a\",\r\n ]{0,200}", cap in 0usize..5) {
            let table = parse_csv(&s, cap);
            prop_assert!(table.rows.len() <= cap);
        }
    }
}
