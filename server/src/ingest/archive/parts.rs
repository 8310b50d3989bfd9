//! Rewriting a stored event's inline bytes (`raw` parts of 1.0, `file.bytes` of 0.3) into
//! references to the archive, and reading the archive notes back.

use app::content::archive::archive_url;
use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::{ARCHIVE_METADATA_KEY, Archived, ArtifactStore, MAX_OBJECT_BYTES, PutError, digest};

/// The console's archive notes (`metadata.agentTaskbayArchive`) in a stored payload.
pub fn archive_notes(value: &Value) -> Vec<&Value> {
    fn walk<'a>(value: &'a Value, notes: &mut Vec<&'a Value>) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(metadata)) = map.get("metadata")
                    && let Some(note) = metadata.get(ARCHIVE_METADATA_KEY)
                {
                    notes.push(note);
                }
                for (key, child) in map {
                    if key != "data" && key != "metadata" {
                        walk(child, notes);
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, notes)),
            _ => {}
        }
    }
    let mut notes = Vec::new();
    walk(value, &mut notes);
    notes
}

impl ArtifactStore {
    /// Replaces inline bytes in a stored event by archive references. Returns the rewritten
    /// payload and what was archived (empty when the event carried no bytes).
    pub fn archive_parts(
        &self,
        organization_id: &str,
        payload: &Value,
    ) -> std::io::Result<(Value, Vec<Archived>)> {
        self.rewrite(organization_id, payload, true)
    }

    /// What [`ArtifactStore::archive_parts`] stores for `payload`, without writing anything (a
    /// rebuild checks a stored event against its archived original with it).
    pub fn rewritten(&self, organization_id: &str, payload: &Value) -> (Value, Vec<Archived>) {
        // Nothing is written, so nothing can fail.
        self.rewrite(organization_id, payload, false)
            .unwrap_or_else(|_| (payload.clone(), Vec::new()))
    }

    fn rewrite(&self, org: &str, payload: &Value, write: bool) -> std::io::Result<(Value, Vec<Archived>)> {
        let mut out = payload.clone();
        let mut archived = Vec::new();
        Walk {
            store: self,
            org,
            write,
            archived: &mut archived,
        }
        .walk(&mut out)?;
        Ok((out, archived))
    }
}

/// One rewrite of an event: where it stores, and what it archived.
struct Walk<'a> {
    store: &'a ArtifactStore,
    org: &'a str,
    write: bool,
    archived: &'a mut Vec<Archived>,
}

impl Walk<'_> {
    fn walk(&mut self, value: &mut Value) -> std::io::Result<()> {
        match value {
            Value::Object(obj) => {
                for (key, child) in obj.iter_mut() {
                    // Data and metadata are the agent's own JSON: never rewritten.
                    if key == "data" || key == "metadata" {
                        continue;
                    }
                    if key == "parts"
                        && let Value::Array(parts) = child
                    {
                        for part in parts.iter_mut() {
                            if let Value::Object(part) = part {
                                self.archive_part(part)?;
                            }
                        }
                        continue;
                    }
                    self.walk(child)?;
                }
            }
            Value::Array(items) => {
                for item in items {
                    self.walk(item)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn archive_part(&mut self, part: &mut Map<String, Value>) -> std::io::Result<()> {
        // 1.0: {"raw": base64, "mediaType", "filename"}; 0.3: {"kind":"file","file":{"bytes","mimeType","name"}}.
        if let Some(Value::String(raw)) = part.get("raw").cloned() {
            let media_type = part.get("mediaType").and_then(Value::as_str).map(str::to_owned);
            let filename = part.get("filename").and_then(Value::as_str).map(str::to_owned);
            let replacement = self.store_base64(&raw, media_type, filename)?;
            part.remove("raw");
            apply(part, "url", replacement);
        } else if let Some(Value::Object(file)) = part.get_mut("file")
            && let Some(Value::String(bytes)) = file.get("bytes").cloned()
        {
            let media_type = file.get("mimeType").and_then(Value::as_str).map(str::to_owned);
            let filename = file.get("name").and_then(Value::as_str).map(str::to_owned);
            let replacement = self.store_base64(&bytes, media_type, filename)?;
            file.remove("bytes");
            match replacement {
                Replacement::Archived(url, note) => {
                    file.insert("uri".into(), json!(url));
                    metadata(part).insert(ARCHIVE_METADATA_KEY.into(), note);
                }
                Replacement::Refused(note) => {
                    // The bytes are dropped; the part becomes a text part saying why.
                    part.remove("file");
                    part.insert("kind".into(), json!("text"));
                    part.insert("text".into(), note["refused"].clone());
                    metadata(part).insert(ARCHIVE_METADATA_KEY.into(), note);
                }
            }
        }
        Ok(())
    }

    fn store_base64(
        &mut self,
        encoded: &str,
        media_type: Option<String>,
        filename: Option<String>,
    ) -> std::io::Result<Replacement> {
        let bytes = match base64::engine::general_purpose::STANDARD.decode(encoded.trim()) {
            Ok(bytes) => bytes,
            Err(_) => {
                return Ok(Replacement::Refused(
                    json!({"refused": "The inline bytes are not valid base64."}),
                ));
            }
        };
        if bytes.len() > MAX_OBJECT_BYTES {
            return Ok(Replacement::Refused(json!({
                "refused": format!("The file exceeds the {} MiB archive limit.", MAX_OBJECT_BYTES / (1024 * 1024)),
                "size": bytes.len(),
            })));
        }
        let digest = if self.write {
            match self.store.put(self.org, &bytes) {
                Ok(digest) => digest,
                Err(PutError::Io(error)) => return Err(error),
                Err(full @ PutError::QuotaFull(_)) => {
                    return Ok(Replacement::Refused(
                        json!({"refused": full.to_string(), "size": bytes.len()}),
                    ));
                }
            }
        } else {
            digest(&bytes)
        };
        self.archived.push(Archived {
            digest: digest.clone(),
            size: bytes.len() as u64,
            media_type,
            filename,
        });
        Ok(Replacement::Archived(
            archive_url(&digest),
            json!({"digest": digest, "size": bytes.len()}),
        ))
    }
}

enum Replacement {
    Archived(String, Value),
    Refused(Value),
}

fn metadata(part: &mut Map<String, Value>) -> &mut Map<String, Value> {
    let entry = part
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    match entry {
        Value::Object(map) => map,
        _ => unreachable!("made an object above"),
    }
}

fn apply(part: &mut Map<String, Value>, key: &str, replacement: Replacement) {
    match replacement {
        Replacement::Archived(url, note) => {
            part.insert(key.into(), json!(url));
            metadata(part).insert(ARCHIVE_METADATA_KEY.into(), note);
        }
        Replacement::Refused(mut note) => {
            // The bytes are dropped; the part becomes a text part saying why, so the task shows
            // it. What the file was moves into the note.
            for key in ["mediaType", "filename"] {
                if let Some(value) = part.remove(key) {
                    note[key] = value;
                }
            }
            part.insert("text".into(), note["refused"].clone());
            part.insert("mediaType".into(), json!("text/plain"));
            metadata(part).insert(ARCHIVE_METADATA_KEY.into(), note);
        }
    }
}
