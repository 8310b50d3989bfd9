//! Every server function the console answers, with the permission it needs and the one content
//! type its input codec reads (issue #26).
//!
//! Leptos' codecs do not look at `Content-Type`: a JSON-input function parses a `text/plain`
//! body, which a page on any site may send without a preflight. The request guard therefore
//! accepts a server-function call only with the content type named here, taken from the
//! function's own codec, and refuses a path that is not in the table. A test checks that the
//! table and the functions Leptos registered are the same set, so a new server function cannot
//! be served without declaring its permission here.

use leptos::server_fn::{ContentType, Http, ServerFn};

use crate::http::api::principal::Permission;

/// What the guard knows of one server function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerFnRule {
    /// `/api/fn/<name>`.
    pub path: &'static str,
    /// The only `Content-Type` its input codec reads (without parameters).
    pub content_type: &'static str,
    pub permission: Permission,
}

/// The content type of a protocol's input codec.
trait InputContentType {
    const INPUT: &'static str;
}

impl<I: ContentType, O> InputContentType for Http<I, O> {
    const INPUT: &'static str = I::CONTENT_TYPE;
}

macro_rules! rules {
    ($($function:ty => $permission:ident),* $(,)?) => {
        &[$(ServerFnRule {
            path: <$function as ServerFn>::PATH,
            content_type: <<$function as ServerFn>::Protocol as InputContentType>::INPUT,
            permission: Permission::$permission,
        }),*]
    };
}

/// Every server function (`shared/spec/reference.md` §4.1 permissions, as the JSON API's
/// routes for the same work).
pub const SERVER_FNS: &[ServerFnRule] = {
    use app::api::access::*;
    use app::api::agents::*;
    use app::api::approvals::*;
    use app::api::credentials::*;
    use app::api::extensions::*;
    use app::api::identity::*;
    use app::api::tasks::*;
    rules![
        GetIdentity => Read,
        GetAccess => Administer,
        ChangeAccess => Administer,
        SignOut => Read,
        ListAgents => Read,
        GetAgent => Read,
        ProbeAgentInterfaces => Read,
        ListAgentChoices => Read,
        GetChatAgent => Read,
        GetAgentExtensions => Read,
        PreviewAgent => Administer,
        RegisterAgent => Administer,
        RemoveAgent => Administer,
        SetInterfacePin => Administer,
        GetAgentCredential => Administer,
        StoreAgentCredential => Administer,
        RevokeAgentCredential => Administer,
        ListTasks => Read,
        GetTask => Read,
        ListConversations => Read,
        GetConversation => Read,
        GetNewConversation => Read,
        GetConversationEvents => Read,
        GetConversationExchanges => Read,
        SendMessage => Operate,
        CancelTask => Operate,
        SubscribeTask => Operate,
        ListApprovals => Read,
        GetApproval => Read,
        CountPendingApprovals => Read,
        DecideApproval => Operate,
        ListReviewers => Operate,
        OpenApproval => Operate,
    ]
};

/// The rule of the server function at `path`, if there is one.
pub fn rule(path: &str) -> Option<&'static ServerFnRule> {
    SERVER_FNS.iter().find(|rule| rule.path == path)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn every_registered_server_function_declares_its_rule() {
        let registered: BTreeSet<&str> = leptos::server_fn::axum::server_fn_paths()
            .map(|(path, _)| path)
            .collect();
        let declared: BTreeSet<&str> = SERVER_FNS.iter().map(|rule| rule.path).collect();
        assert_eq!(
            registered, declared,
            "server functions and their guard rules differ"
        );
        assert_eq!(declared.len(), SERVER_FNS.len(), "a function is declared twice");
    }

    #[test]
    fn the_content_type_comes_from_the_codec() {
        assert_eq!(
            rule("/api/fn/send_message").unwrap().content_type,
            "application/json"
        );
        assert_eq!(
            rule("/api/fn/register_agent").unwrap().content_type,
            "application/x-www-form-urlencoded"
        );
        assert_eq!(
            rule("/api/fn/remove_agent").unwrap().permission,
            Permission::Administer
        );
        assert!(rule("/api/fn/no_such_function").is_none());
    }
}
