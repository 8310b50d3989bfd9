//! The field checks the card rules are made of: a required or optional string, boolean, array,
//! URL or list at a path, each reporting what is wrong with the value it found.

use serde_json::{Map, Value};

use super::super::lenient::{index, join};
use super::{
    Checker, ComplianceIssue, ComplianceReport, ERROR_PENALTY, MAX_SCORE, Severity, WARNING_PENALTY,
};
use crate::a2a::card::CardVersion;

pub(super) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(super) fn is_http_url(s: &str) -> bool {
    let lower = s.trim().to_ascii_lowercase();
    ["http://", "https://"]
        .iter()
        .any(|p| lower.strip_prefix(p).is_some_and(|rest| !rest.is_empty()))
}

impl Checker {
    pub(super) fn push(&mut self, severity: Severity, path: impl Into<String>, message: impl Into<String>) {
        self.issues.push(ComplianceIssue {
            severity,
            path: path.into(),
            message: message.into(),
        });
    }

    pub(super) fn finish(self, version: CardVersion) -> ComplianceReport {
        let penalty: u32 = self
            .issues
            .iter()
            .map(|i| match i.severity {
                Severity::Error => ERROR_PENALTY,
                Severity::Warning => WARNING_PENALTY,
                Severity::Info => 0,
            })
            .sum();
        ComplianceReport {
            version,
            score: MAX_SCORE.saturating_sub(penalty),
            issues: self.issues,
        }
    }

    /// A REQUIRED non-blank string; returns it when valid.
    pub(super) fn required_string<'a>(
        &mut self,
        obj: &'a Map<String, Value>,
        key: &str,
        path: &str,
    ) -> Option<&'a str> {
        let at = join(path, key);
        match obj.get(key) {
            None | Some(Value::Null) => self.push(Severity::Error, at, format!("{key} is required.")),
            Some(Value::String(s)) if s.trim().is_empty() => {
                self.push(Severity::Error, at, format!("{key} must not be empty."))
            }
            Some(Value::String(s)) => return Some(s),
            Some(other) => self.push(
                Severity::Error,
                at,
                format!("{key} must be a string, not {}.", type_name(other)),
            ),
        }
        None
    }

    /// An optional string; wrong types are errors.
    pub(super) fn optional_string<'a>(
        &mut self,
        obj: &'a Map<String, Value>,
        key: &str,
        path: &str,
    ) -> Option<&'a str> {
        match obj.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(other) => {
                self.push(
                    Severity::Error,
                    join(path, key),
                    format!("{key} must be a string, not {}.", type_name(other)),
                );
                None
            }
        }
    }

    pub(super) fn optional_bool(&mut self, obj: &Map<String, Value>, key: &str, path: &str) {
        if let Some(v) = obj.get(key).filter(|v| !v.is_null() && !v.is_boolean()) {
            self.push(
                Severity::Error,
                join(path, key),
                format!("{key} must be a boolean, not {}.", type_name(v)),
            );
        }
    }

    /// A required array; returns its items when it is one.
    pub(super) fn required_array<'a>(
        &mut self,
        obj: &'a Map<String, Value>,
        key: &str,
        path: &str,
    ) -> Option<&'a [Value]> {
        let at = join(path, key);
        match obj.get(key) {
            None | Some(Value::Null) => self.push(Severity::Error, at, format!("{key} is required.")),
            Some(Value::Array(items)) => return Some(items),
            Some(other) => self.push(
                Severity::Error,
                at,
                format!("{key} must be an array, not {}.", type_name(other)),
            ),
        }
        None
    }

    pub(super) fn url(&mut self, obj: &Map<String, Value>, key: &str, path: &str) {
        if let Some(url) = self.required_string(obj, key, path)
            && !is_http_url(url)
        {
            self.push(
                Severity::Error,
                join(path, key),
                format!("{key} must be an absolute http(s) URL."),
            );
        }
    }

    /// A media-type list: required ones must be non-empty; optional ones warn when empty.
    pub(super) fn mode_list(&mut self, obj: &Map<String, Value>, key: &str, path: &str, required: bool) {
        let at = join(path, key);
        let items = if required {
            match self.required_array(obj, key, path) {
                Some(items) => items,
                None => return,
            }
        } else {
            match obj.get(key) {
                None | Some(Value::Null) => return,
                Some(Value::Array(items)) => items.as_slice(),
                Some(other) => {
                    self.push(
                        Severity::Error,
                        at,
                        format!("{key} must be an array, not {}.", type_name(other)),
                    );
                    return;
                }
            }
        };
        if items.is_empty() {
            if required {
                self.push(
                    Severity::Error,
                    at.clone(),
                    format!("{key} must list at least one media type."),
                );
            } else {
                self.push(
                    Severity::Warning,
                    at.clone(),
                    format!("{key} is empty; omit it to use the card defaults."),
                );
            }
        }
        for (i, item) in items.iter().enumerate() {
            if item.as_str().is_none_or(|s| s.trim().is_empty()) {
                self.push(
                    Severity::Error,
                    index(&at, i),
                    "A media type must be a non-empty string.",
                );
            }
        }
    }

    pub(super) fn string_list(&mut self, obj: &Map<String, Value>, key: &str, path: &str) {
        match obj.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    if !item.is_string() {
                        self.push(Severity::Error, index(&join(path, key), i), "Must be a string.");
                    }
                }
            }
            Some(other) => self.push(
                Severity::Error,
                join(path, key),
                format!("{key} must be an array, not {}.", type_name(other)),
            ),
        }
    }
}
