//! `apikey`, `bearer`, `oauth`: protected agents (the credential is checked before a message
//! reaches here, `demo_agent::locked`). They say the credential was accepted; "leak" in the
//! message makes them echo their own secret in every form a console must redact
//! (`shared/spec/security-and-durability.md` §2.3 step 9): literally, in base64, URL-encoded, as
//! a data key and value, and inside a file's bytes.

use app::a2a::TaskState;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::json;

use crate::demo_agent::locked::Lock;
use crate::demo_agent::runner::Step;
use crate::demo_agent::wire::{Incoming, Update, data_part, text_part};

/// The script.
pub(crate) fn plan(lock: Lock, incoming: &Incoming) -> Vec<Step> {
    if !incoming.lower_text().contains("leak") {
        return vec![Step::Do(Update::say(
            TaskState::Completed,
            format!(
                "Credential accepted by this protected agent. You said: \"{}\".",
                incoming.text.trim()
            ),
        ))];
    }
    let secret = lock.secret();
    let url_encoded: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
    let file = format!("credential dump\nsecret={secret}\n");
    vec![
        Step::Do(Update::artifact(json!({
            "artifactId": "leaked-credential",
            "name": "credential.txt",
            "parts": [{"raw": STANDARD.encode(file), "mediaType": "text/plain", "filename": "credential.txt"}],
        }))),
        Step::Do(Update::parts(
            TaskState::Completed,
            vec![
                text_part(format!(
                    "A careless agent echoes its credential: {secret} / base64 {} / url {url_encoded}",
                    STANDARD.encode(secret)
                )),
                data_part(
                    json!({ secret: secret, "note": "the key and the value are the credential" }),
                    "application/json",
                ),
            ],
        )),
    ]
}
