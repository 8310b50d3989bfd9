//! The card rules about where and how the console can call the agent: the 1.0
//! `supportedInterfaces` and the 0.3 `url`/`preferredTransport`/`additionalInterfaces`, their
//! bindings, and whether any of them is usable at all.

use serde_json::{Map, Value};

use super::{Checker, Severity};
use crate::a2a::card::{AgentCard, CardVersion};
use crate::a2a::interface::{Binding, InterfacePin, choose_interface};
use crate::a2a::lenient::{index, join};
use crate::a2a::version::ProtocolVersion;

impl Checker {
    pub(super) fn binding(&mut self, name: &str, at: String) {
        match Binding::parse(name) {
            Binding::JsonRpc | Binding::HttpJson => {}
            Binding::Grpc => self.push(
                Severity::Warning,
                at,
                "gRPC is not used by this console (hardened network policy); advertise an HTTP binding too.",
            ),
            Binding::Other(b) => self.push(
                Severity::Warning,
                at,
                format!("Unknown protocol binding {b}; expected JSONRPC or HTTP+JSON."),
            ),
        }
    }

    pub(super) fn v1_interfaces(&mut self, obj: &Map<String, Value>) {
        let Some(items) = self.required_array(obj, "supportedInterfaces", "") else {
            return;
        };
        if items.is_empty() {
            self.push(
                Severity::Error,
                "supportedInterfaces",
                "supportedInterfaces must list at least one interface.",
            );
        }
        let mut seen: Vec<(String, String, String, String)> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let path = index("supportedInterfaces", i);
            let Some(iface) = item.as_object() else {
                self.push(Severity::Error, path, "An interface must be an object.");
                continue;
            };
            self.url(iface, "url", &path);
            if let Some(b) = self.required_string(iface, "protocolBinding", &path) {
                self.binding(b, join(&path, "protocolBinding"));
            }
            if let Some(v) = self.required_string(iface, "protocolVersion", &path)
                && ProtocolVersion::parse(v).is_none()
            {
                self.push(
                    Severity::Warning,
                    join(&path, "protocolVersion"),
                    format!("Protocol version {v} is not spoken by this console (1.0 or 0.3)."),
                );
            }
            let tenant = self.optional_string(iface, "tenant", &path).unwrap_or_default();
            let key = (
                iface
                    .get("protocolBinding")
                    .and_then(Value::as_str)
                    .map(|b| Binding::parse(b).as_str().to_owned()),
                iface
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .and_then(crate::a2a::version::major_minor),
                iface.get("url").and_then(Value::as_str),
            );
            if let (Some(b), Some(v), Some(u)) = key {
                let key = (b, v, u.to_owned(), tenant.to_owned());
                if seen.contains(&key) {
                    self.push(Severity::Info, path, "Duplicate interface; it is ignored.");
                } else {
                    seen.push(key);
                }
            }
        }
        if obj.contains_key("url") || obj.contains_key("preferredTransport") {
            self.push(
                Severity::Info,
                "url",
                "Legacy 0.3 fields (url, preferredTransport) are present alongside supportedInterfaces.",
            );
        }
    }

    pub(super) fn v03_interfaces(&mut self, obj: &Map<String, Value>) {
        self.url(obj, "url", "");
        match obj.get("protocolVersion") {
            None | Some(Value::Null) => self.push(
                Severity::Warning,
                "protocolVersion",
                "protocolVersion should be set (e.g. 0.3.0).",
            ),
            Some(_) => {
                self.optional_string(obj, "protocolVersion", "");
            }
        }
        match self.optional_string(obj, "preferredTransport", "") {
            Some(t) => self.binding(t, "preferredTransport".to_owned()),
            None if !obj.contains_key("preferredTransport") => self.push(
                Severity::Info,
                "preferredTransport",
                "preferredTransport is absent; JSONRPC is assumed.",
            ),
            None => {}
        }
        let Some(extra) = obj.get("additionalInterfaces").filter(|v| !v.is_null()) else {
            return;
        };
        let Some(items) = extra.as_array() else {
            self.push(
                Severity::Error,
                "additionalInterfaces",
                "additionalInterfaces must be an array.",
            );
            return;
        };
        for (i, item) in items.iter().enumerate() {
            let path = index("additionalInterfaces", i);
            let Some(iface) = item.as_object() else {
                self.push(Severity::Error, path, "An interface must be an object.");
                continue;
            };
            self.url(iface, "url", &path);
            if let Some(t) = self.required_string(iface, "transport", &path) {
                self.binding(t, join(&path, "transport"));
            }
        }
    }

    pub(super) fn usable_interface(&mut self, card: &Value, version: CardVersion) {
        let Ok(normalised) = AgentCard::decode(card) else {
            return;
        };
        if normalised.interfaces.is_empty() {
            return; // already reported as missing URLs
        }
        if let Err(e) = choose_interface(&normalised.interfaces, &InterfacePin::default()) {
            let path = if version == CardVersion::V1_0 {
                "supportedInterfaces"
            } else {
                "url"
            };
            self.push(Severity::Warning, path, format!("No usable interface: {e}"));
        }
    }
}
