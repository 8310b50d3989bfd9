//! The A2A operations by name on [`Gateway`], one method each (`shared/spec/a2a-and-a2ui.md`
//! §A.1): each hands its already-shaped params to [`Gateway::call`] or [`Gateway::stream`]
//! with its [`Operation`].

use app::a2a::Operation;
use serde_json::Value;

use super::calls::EventStream;
use super::client::Gateway;
use super::endpoint::Endpoint;
use super::error::GatewayError;

impl Gateway {
    /// `SendMessage` (`message/send`).
    pub async fn send_message(
        &self,
        endpoint: &Endpoint,
        params: Value,
        extensions: &[String],
    ) -> Result<Value, GatewayError> {
        self.call(endpoint, Operation::SendMessage, params, extensions)
            .await
    }

    /// `SendStreamingMessage` (`message/stream`).
    pub async fn send_streaming_message(
        &self,
        endpoint: &Endpoint,
        params: Value,
        extensions: &[String],
    ) -> Result<EventStream, GatewayError> {
        self.stream(endpoint, Operation::SendStreamingMessage, params, extensions)
            .await
    }

    /// `GetTask` (`tasks/get`).
    pub async fn get_task(
        &self,
        endpoint: &Endpoint,
        params: Value,
        extensions: &[String],
    ) -> Result<Value, GatewayError> {
        self.call(endpoint, Operation::GetTask, params, extensions).await
    }

    /// `CancelTask` (`tasks/cancel`).
    pub async fn cancel_task(
        &self,
        endpoint: &Endpoint,
        params: Value,
        extensions: &[String],
    ) -> Result<Value, GatewayError> {
        self.call(endpoint, Operation::CancelTask, params, extensions)
            .await
    }

    /// `SubscribeToTask` (`tasks/resubscribe`).
    pub async fn subscribe_to_task(
        &self,
        endpoint: &Endpoint,
        params: Value,
        extensions: &[String],
    ) -> Result<EventStream, GatewayError> {
        self.stream(endpoint, Operation::SubscribeToTask, params, extensions)
            .await
    }

    /// `ListTasks`; [`GatewayError::Unsupported`] over 0.3 JSON-RPC (fall back to GetTask).
    pub async fn list_tasks(
        &self,
        endpoint: &Endpoint,
        params: Value,
        extensions: &[String],
    ) -> Result<Value, GatewayError> {
        self.call(endpoint, Operation::ListTasks, params, extensions)
            .await
    }

    /// `CreateTaskPushNotificationConfig` (`tasks/pushNotificationConfig/set`).
    pub async fn create_push_config(
        &self,
        endpoint: &Endpoint,
        params: Value,
        extensions: &[String],
    ) -> Result<Value, GatewayError> {
        self.call(
            endpoint,
            Operation::CreateTaskPushNotificationConfig,
            params,
            extensions,
        )
        .await
    }

    /// `GetTaskPushNotificationConfig` (`tasks/pushNotificationConfig/get`).
    pub async fn get_push_config(
        &self,
        endpoint: &Endpoint,
        params: Value,
        extensions: &[String],
    ) -> Result<Value, GatewayError> {
        self.call(
            endpoint,
            Operation::GetTaskPushNotificationConfig,
            params,
            extensions,
        )
        .await
    }

    /// `ListTaskPushNotificationConfigs` (`tasks/pushNotificationConfig/list`).
    pub async fn list_push_configs(
        &self,
        endpoint: &Endpoint,
        params: Value,
        extensions: &[String],
    ) -> Result<Value, GatewayError> {
        self.call(
            endpoint,
            Operation::ListTaskPushNotificationConfigs,
            params,
            extensions,
        )
        .await
    }

    /// `DeleteTaskPushNotificationConfig` (`tasks/pushNotificationConfig/delete`).
    pub async fn delete_push_config(
        &self,
        endpoint: &Endpoint,
        params: Value,
        extensions: &[String],
    ) -> Result<Value, GatewayError> {
        self.call(
            endpoint,
            Operation::DeleteTaskPushNotificationConfig,
            params,
            extensions,
        )
        .await
    }

    /// `GetExtendedAgentCard` (`agent/getAuthenticatedExtendedCard`).
    pub async fn get_extended_card(
        &self,
        endpoint: &Endpoint,
        params: Value,
        extensions: &[String],
    ) -> Result<Value, GatewayError> {
        self.call(endpoint, Operation::GetExtendedAgentCard, params, extensions)
            .await
    }
}
