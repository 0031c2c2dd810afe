//! A test double of the API server for an operator's unit tests (feature `test-double`): a
//! `kube::Client` whose requests an in-memory store answers, so that a reconcile runs
//! through [`StatusReconciler`](crate::controller::StatusReconciler) unchanged, without a
//! server, and the test asserts the status written, the exact requests sent (method, path,
//! query, answer) and the Events recorded.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use kondition::testing::double::ApiDouble;
//! use k8s_openapi::api::core::v1::ConfigMap;
//!
//! let double = ApiDouble::new();
//! let client = double.client();
//! // A kind the double was not given is unknown, as on a server without its CRD.
//! let events = kube::Api::<k8s_openapi::api::events::v1::Event>::namespaced(client, "default");
//! assert!(events.list(&Default::default()).await.expect("Events are served").items.is_empty());
//! assert_eq!(double.requests()[0].path, "/apis/events.k8s.io/v1/namespaces/default/events");
//! # }
//! ```
//!
//! # What it models
//!
//! Exactly what kondition's chokepoint and its finalizer helper send, for the kinds given by
//! their CRDs ([`ApiDouble::crd`]) and events.k8s.io/v1 Events:
//!
//! - `POST` (create: `uid`, `resourceVersion`, `generation` 1, the status dropped when it is a
//!   subresource; 409 AlreadyExists), `GET` of one object or a list, `DELETE` (gone at once
//!   without finalizers; with them, `deletionTimestamp` set and gone when the last one is
//!   removed), 404 NotFound for an object that is not there;
//! - `PATCH` of the main resource as a JSON patch (RFC 6902 `test`, `add`, `remove`,
//!   `replace`: a failed `test` is 422) or a JSON merge patch (a `resourceVersion` in it is a
//!   precondition); a change outside `metadata` moves `generation`; no finalizer may be added
//!   to an object being deleted (422); a strategic merge patch is 415, as for any custom
//!   resource;
//! - forced server-side applies of `/status` (`fieldManager`, `force=true`): the body's
//!   `metadata.resourceVersion` is a precondition (409 Conflict, so a re-created object, whose
//!   version differs, is refused too); per-manager ownership, where a forced apply takes the
//!   fields whose value it changes and shares those it sets to the value stored, and a field a
//!   manager stops applying is removed when no other manager owns it; the `conditions` list
//!   merged by `type` when the CRD makes it a map (`x-kubernetes-list-type: map`), each
//!   condition's fields owned apart, so two managers owning different conditions both keep
//!   theirs; an apply that changes nothing keeps the `resourceVersion`; `managedFields` holds
//!   one `Apply` entry per manager of the status, with its `fieldsV1`;
//! - 422 Invalid for a status the CRD's schema refuses, checked by kondition's offline
//!   checker ([`crate::check`], its `schema-*` rules; CEL rules with the feature `cel`), worded
//!   as the server's field errors (`Document.example.com "d1" is invalid: status.hidden:
//!   ...`), or refused by a rule the test gives ([`ApiDouble::reject_status`]); a refused apply
//!   changes nothing;
//! - Events: created, and patched (kube's `Recorder` counts a repeated Event in its series).
//!
//! # What it does not model
//!
//! It is not an API server. No watch (call the reconcile with an object the test reads, as a
//! unit test does; a `watch=true` request is answered 501), no authentication or
//! authorization, admission, defaulting, pruning of unknown fields, ratcheting, field
//! conflicts of a non-forced apply, server-side apply of the main resource (501), updates
//! (`PUT`), dry runs, label or field selectors, `resourceVersion` semantics of lists, namespaces as
//! objects, owner references and garbage collection, `metadata.managedFields` of writes other
//! than status applies, `Retry-After`, API Priority and Fairness, timing. Nested status
//! fields other than `conditions` are owned whole (the server owns each map key apart).
//! Anything outside this list answers 501 NotImplemented, naming what it does not model,
//! rather than a guess. The reference remains the real API server: kondition's own tests run
//! the same scenarios on both (the tests crate's `double.rs`).
//!
//! The requests are recorded in the order received ([`ApiDouble::requests`]), the
//! unrecorded client ([`ApiDouble::unrecorded_client`]) sets a test up without adding to
//! them.

mod ssa;
mod store;

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Resource;
use kube::client::Body;
use serde::de::DeserializeOwned;
use serde_json::Value;

use store::{Kind, Store};

/// One request the double received, and its answer's code.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// `GET`, `POST`, `PATCH`, `DELETE`.
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The query's pairs, decoded, in the order sent.
    pub query: Vec<(String, String)>,
    /// The content type (empty when none was sent).
    pub content_type: String,
    /// The JSON body (null when there was none).
    pub body: Value,
    /// The answer's status code.
    pub status: u16,
}

impl Request {
    /// The value of the query parameter `name`, if sent.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// The test double: an in-memory store of objects answering requests like the API server
/// does for what kondition's chokepoint sends (see the [module](self)). Clones share the
/// store and the record.
#[derive(Clone)]
pub struct ApiDouble {
    shared: Arc<Shared>,
}

struct Shared {
    store: Mutex<Store>,
    requests: Mutex<Vec<Request>>,
}

impl Default for ApiDouble {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for ApiDouble {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiDouble")
            .field("requests", &self.requests().len())
            .finish_non_exhaustive()
    }
}

impl ApiDouble {
    /// A double serving Events and no other kind.
    pub fn new() -> Self {
        ApiDouble {
            shared: Arc::new(Shared {
                store: Mutex::new(Store::new()),
                requests: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Serves the kind `crd` defines (its first version's schema: whether the status is a
    /// subresource, whether `conditions` is a map list, and what a status must be).
    #[must_use]
    pub fn crd(self, crd: &CustomResourceDefinition) -> Self {
        self.store().add_kind(Kind::of(crd));
        self
    }

    /// Refuses a status apply with 422 when `rule` says so: given the object as the apply
    /// would leave it (JSON), the field error (`status.endpoint: Invalid value: "x": ...`),
    /// or None. For what the CRD's schema cannot say to the offline checker (a CEL rule
    /// without the feature `cel`, an admission policy). Checked after the schema.
    #[must_use]
    pub fn reject_status(
        self,
        rule: impl Fn(&Value) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.store().rules.push(Box::new(rule));
        self
    }

    /// A client whose requests the double answers and records; its default namespace is
    /// `default`. Needs a tokio runtime (kube's client runs a task of its own).
    pub fn client(&self) -> kube::Client {
        kube::Client::new(
            Service {
                shared: Arc::clone(&self.shared),
                record: true,
            },
            "default",
        )
    }

    /// A client whose requests the double answers without recording them: for setting a
    /// test up and looking at what is stored.
    pub fn unrecorded_client(&self) -> kube::Client {
        kube::Client::new(
            Service {
                shared: Arc::clone(&self.shared),
                record: false,
            },
            "default",
        )
    }

    /// The requests [`ApiDouble::client`] sent, in order.
    pub fn requests(&self) -> Vec<Request> {
        lock(&self.shared.requests).clone()
    }

    /// Forgets the requests recorded so far.
    pub fn clear_requests(&self) {
        lock(&self.shared.requests).clear();
    }

    /// The object `name` of kind `K` in `namespace` (empty for a cluster-scoped kind), as
    /// stored, or None.
    pub fn object<K>(&self, namespace: &str, name: &str) -> Option<K>
    where
        K: Resource<DynamicType = ()> + DeserializeOwned,
    {
        let value = self
            .store()
            .object(&K::group(&()), &K::plural(&()), namespace, name)?;
        serde_json::from_value(value).ok()
    }

    /// Every Event recorded, in the order of their names (a repeated one once, its
    /// `series.count` saying how many times).
    pub fn events(&self) -> Vec<k8s_openapi::api::events::v1::Event> {
        let events = self.store().objects("events.k8s.io", "events");
        events
            .into_iter()
            .filter_map(|e| serde_json::from_value(e).ok())
            .collect()
    }

    fn store(&self) -> MutexGuard<'_, Store> {
        lock(&self.shared.store)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The tower service behind the double's clients.
#[derive(Clone)]
struct Service {
    shared: Arc<Shared>,
    record: bool,
}

impl tower_service::Service<http::Request<Body>> for Service {
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let body = body
                .collect_bytes()
                .await
                .map(|b| b.to_vec())
                .unwrap_or_default();
            let method = parts.method.as_str().to_owned();
            let path = parts.uri.path().to_owned();
            let query = parts.uri.query().map(decode_query).unwrap_or_default();
            let content_type = parts
                .headers
                .get(http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            let (status, answer) =
                lock(&this.shared.store).handle(&method, &path, &query, &content_type, &body);
            if this.record {
                lock(&this.shared.requests).push(Request {
                    method,
                    path,
                    query,
                    content_type,
                    body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                    status,
                });
            }
            let mut response = http::Response::new(Body::from(answer.to_string().into_bytes()));
            *response.status_mut() = http::StatusCode::from_u16(status)
                .unwrap_or(http::StatusCode::INTERNAL_SERVER_ERROR);
            response.headers_mut().insert(
                http::header::CONTENT_TYPE,
                http::HeaderValue::from_static("application/json"),
            );
            Ok(response)
        })
    }
}

/// A query's pairs, percent-decoded (`+` as a space), empty pairs left out.
fn decode_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(key), decode(value))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'%' if at + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[at + 1..at + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(byte) => {
                        out.push(byte);
                        at += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            byte => out.push(byte),
        }
        at += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::decode_query;

    #[test]
    fn a_query_is_decoded() {
        assert_eq!(
            decode_query("&force=true&fieldManager=example.com%2Fdocument-controller"),
            [
                ("force".to_owned(), "true".to_owned()),
                (
                    "fieldManager".to_owned(),
                    "example.com/document-controller".to_owned()
                )
            ]
        );
    }
}
