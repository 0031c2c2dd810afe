//! Real throttling by API Priority and Fairness (APF): an identity whose requests the API
//! server itself answers `429 Too Many Requests`, as a loaded cluster does, for tests of what
//! a controller does then ([`TestEnv::throttled`](crate::cluster::TestEnv::throttled)).
//!
//! APF limits concurrency, not rate: a priority level admits a request whenever it has a free
//! seat, and one even with no seat at all when nothing of it is executing (kube-apiserver 1.37,
//! `queueset.canAccommodateSeatsLocked`). So the throttle has two parts:
//!
//! - a PriorityLevelConfiguration (`flowcontrol.apiserver.k8s.io/v1`) of type `Limited` with
//!   the smallest concurrency (`nominalConcurrencyShares: 0`, `lendablePercent: 0`,
//!   `borrowingLimitPercent: 0`) and `limitResponse: Reject` (no queue), and a FlowSchema that
//!   puts every request of the identity's ServiceAccount there (`matchingPrecedence` 50: before
//!   every default schema but `exempt` and `probes`, which never match it);
//! - a request of the identity that holds the level's only seat: a `POST` of a
//!   SelfSubjectReview (which any authenticated user may create) whose body never ends. The
//!   server admits it, authorizes it and then waits for its body, seated, until the test lets
//!   it go (or the launcher's `--request-timeout`, 30 minutes, ends it; [`Throttled::release`]
//!   fails the test if it ended before).
//!
//! Every other request of the identity is then refused before authorization, at once. The
//! server's answer, as read on the launcher's kube-apiserver 1.37.2 (HTTP/1.1, as kube's client
//! speaks; HTTP/2 differs only in the status line):
//!
//! ```text
//! HTTP/1.1 429 Too Many Requests
//! Audit-Id: 7432a0da-60af-4b41-8e39-7d56f32336ef
//! Cache-Control: no-cache, private
//! Content-Type: text/plain; charset=utf-8
//! Retry-After: 1
//! X-Content-Type-Options: nosniff
//! X-Kubernetes-Pf-Flowschema-Uid: <the FlowSchema's uid>
//! X-Kubernetes-Pf-Prioritylevel-Uid: <the PriorityLevelConfiguration's uid>
//! Date: Fri, 27 Nov 2026 13:59:02 GMT
//! Content-Length: 43
//!
//! Too many requests, please try again later.
//! ```
//!
//! The body is plain text (Go's `http.Error`), not a JSON `Status`: nothing in it says how
//! long to wait; only the `Retry-After` header does, in whole seconds. Its value is the
//! level's own and grows while refusals go on: 1, then 2, 4, 8... (up to 32) as each second
//! brings more refusals (`DroppedRequestsTracker`), so a test must read it, not assume it.
//! kube's client turns that body into `kube::Error::Api` with a `Status` it makes up: `code`
//! 429, `status` `Failure`, `message` the body's text without its newline, `reason`
//! `"Failed to parse error data"` (not `TooManyRequests`), no `details`: the `Retry-After`
//! header is lost. And a client built by `Client::try_default` (or from any kube `Config`,
//! whose `default_retry` is on) never shows the first 429s: its retry layer sends the request
//! again, up to 15 times, after `Retry-After` (or its own backoff from 5 ms, when longer),
//! before the caller sees the 16th answer. faults.rs pins both on the real server.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body::Frame;
use hyper_util::client::legacy::Client as HyperClient;
use hyper_util::rt::TokioExecutor;
use k8s_openapi::api::flowcontrol::v1::{FlowSchema, PriorityLevelConfiguration};
use kube::api::{DeleteParams, PostParams};
use kube::client::ConfigExt;
use kube::{Api, Client, ResourceExt};
use serde_json::json;
use tokio::sync::oneshot;
use tower::BoxError;

use crate::identity::Identity;
use crate::recording::without_retry;

/// How long to wait for the server to apply (or drop) the APF configuration: a bound only so
/// that a broken server fails the test instead of hanging it (it takes well under a second).
const APPLIED_WITHIN: Duration = Duration::from_secs(300);

/// The pause between two probes while waiting.
const PAUSE: Duration = Duration::from_millis(20);

/// How many probes of the level may be admitted while a holder is in flight before it is
/// taken not to hold the seat and is replaced.
const HOLDER_PATIENCE: u32 = 50;

/// The `matchingPrecedence` of a throttled identity's FlowSchema.
pub const MATCHING_PRECEDENCE: i32 = 50;

/// An identity the API server throttles: each of its requests is answered 429 by APF until
/// [`Throttled::release`] (see the module's documentation).
pub struct Throttled {
    /// The identity, bound to the rules it was made with. Its [`Identity::client`] has
    /// kube's retry layer, which retries each refused request up to 15 times, waiting as
    /// `Retry-After` says: minutes while throttled. [`Identity::recorded_without_retry`]
    /// gives a client that gets each 429 at once.
    pub identity: Identity,
    /// The name of the FlowSchema and of the PriorityLevelConfiguration:
    /// `kondition-tests-<namespace>-<name>`.
    pub flow_schema: String,
    /// The FlowSchema's uid, which every answer to the identity names in its
    /// `X-Kubernetes-PF-FlowSchema-UID` header while the schema classifies it.
    pub flow_schema_uid: String,
    admin: Client,
    holder: Mutex<Option<Holder>>,
}

/// The request holding the level's seat.
struct Holder {
    /// Ends the body (with an error): the request is abandoned and its seat freed.
    release: oneshot::Sender<()>,
    /// How the request ended, once it did.
    ended: Arc<Mutex<Option<String>>>,
    task: tokio::task::JoinHandle<()>,
}

/// One answer to an identity's request, as the server sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The status code.
    pub status: u16,
    /// The `Retry-After` header, if any.
    pub retry_after: Option<String>,
    /// The `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// The `X-Kubernetes-PF-FlowSchema-UID` header: the FlowSchema that classified it.
    pub flow_schema_uid: Option<String>,
    /// The body, as text.
    pub body: String,
}

impl Throttled {
    /// Puts `identity` under a priority level of its own with no concurrency, holds that
    /// level's seat, and waits (polling, with a bound) until a request of the identity is
    /// answered 429 under the new FlowSchema.
    pub(crate) async fn new(admin: Client, identity: Identity) -> Throttled {
        let name = format!("kondition-tests-{}-{}", identity.namespace, identity.name);
        let level: PriorityLevelConfiguration = serde_json::from_value(json!({
            "metadata": {"name": name},
            "spec": {"type": "Limited", "limited": {
                "nominalConcurrencyShares": 0, "lendablePercent": 0, "borrowingLimitPercent": 0,
                "limitResponse": {"type": "Reject"}}}
        }))
        .expect("a PriorityLevelConfiguration");
        Api::<PriorityLevelConfiguration>::all(admin.clone())
            .create(&PostParams::default(), &level)
            .await
            .unwrap_or_else(|e| panic!("PriorityLevelConfiguration {name}: {e}"));
        let schema: FlowSchema = serde_json::from_value(json!({
            "metadata": {"name": name},
            "spec": {
                "priorityLevelConfiguration": {"name": name},
                "matchingPrecedence": MATCHING_PRECEDENCE,
                "rules": [{
                    "subjects": [{"kind": "ServiceAccount", "serviceAccount":
                        {"name": identity.name, "namespace": identity.namespace}}],
                    "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"],
                                       "namespaces": ["*"], "clusterScope": true}],
                    "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}]
                }]
            }
        }))
        .expect("a FlowSchema");
        let schema = Api::<FlowSchema>::all(admin.clone())
            .create(&PostParams::default(), &schema)
            .await
            .unwrap_or_else(|e| panic!("FlowSchema {name}: {e}"));
        let throttled = Throttled {
            flow_schema_uid: schema.uid().expect("a uid"),
            flow_schema: name,
            identity,
            admin,
            holder: Mutex::new(None),
        };
        throttled.hold().await;
        throttled
    }

    /// A request of the identity (a GET of its own ServiceAccount, which its rules may not
    /// allow: the answer is 403 then, or 429 while throttled), sent once: no retry.
    pub async fn probe(&self) -> Answer {
        let client = Client::try_from(without_retry(self.identity.config()))
            .expect("a client for the test API server");
        let path = format!(
            "/api/v1/namespaces/{}/serviceaccounts/{}",
            self.identity.namespace, self.identity.name
        );
        let request = http::Request::get(path)
            .body(kube::client::Body::empty())
            .expect("a request");
        let response = client.send(request).await.expect("an answer");
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let (status, retry_after, content_type, flow_schema_uid) = (
            response.status().as_u16(),
            header("retry-after"),
            header("content-type"),
            header("x-kubernetes-pf-flowschema-uid"),
        );
        let bytes = http_body_util::BodyExt::collect(response.into_body())
            .await
            .expect("the body")
            .to_bytes();
        Answer {
            status,
            retry_after,
            content_type,
            flow_schema_uid,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }

    /// Whether the request holding the seat is still held: `false` once it ended (released,
    /// or ended by the server).
    pub fn holding(&self) -> bool {
        let holder = self.holder.lock().unwrap_or_else(|e| e.into_inner());
        holder
            .as_ref()
            .is_some_and(|h| h.ended.lock().unwrap_or_else(|e| e.into_inner()).is_none())
    }

    /// Ends the throttle: the held request is let go, the FlowSchema and the priority level
    /// deleted, and this waits (polling, with a bound) until a request of the identity is
    /// classified by another schema again. Panics if the held request had ended before (the
    /// throttle lapsed while the test relied on it).
    pub async fn release(&self) {
        let holder = self.holder.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(holder) = holder {
            if let Some(how) = holder
                .ended
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
            {
                panic!("the throttle lapsed before its release: the held request {how}");
            }
            let _ = holder.release.send(());
            let _ = holder.task.await;
        }
        Api::<FlowSchema>::all(self.admin.clone())
            .delete(&self.flow_schema, &DeleteParams::default())
            .await
            .unwrap_or_else(|e| panic!("deleting FlowSchema {}: {e}", self.flow_schema));
        Api::<PriorityLevelConfiguration>::all(self.admin.clone())
            .delete(&self.flow_schema, &DeleteParams::default())
            .await
            .unwrap_or_else(|e| {
                panic!(
                    "deleting PriorityLevelConfiguration {}: {e}",
                    self.flow_schema
                )
            });
        let deadline = Instant::now() + APPLIED_WITHIN;
        loop {
            let answer = self.probe().await;
            if answer.status != 429 && answer.flow_schema_uid != Some(self.flow_schema_uid.clone())
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{} still throttled {APPLIED_WITHIN:?} after its release: {answer:?}",
                self.identity.user()
            );
            tokio::time::sleep(PAUSE).await;
        }
    }

    /// Holds the level's seat and waits until a probe is answered 429 by the new schema. A
    /// holder sent before the server applied the schema sits in another level; one that
    /// reached the server while a probe ran was itself refused: either is replaced.
    async fn hold(&self) {
        let deadline = Instant::now() + APPLIED_WITHIN;
        // Probes of the level admitted while a holder is in flight: a holder that reached the
        // server would hold the seat and the probe be refused, so after many such probes the
        // holder is taken to sit somewhere else (or never to have arrived) and is replaced.
        // (Seen once under a loaded run: the throttle never came within 5 minutes.)
        let mut admitted_while_held = 0u32;
        loop {
            let answer = self.probe().await;
            let ours = answer.flow_schema_uid.as_deref() == Some(self.flow_schema_uid.as_str());
            if answer.status == 429 && ours {
                return;
            }
            if ours && self.holding() {
                admitted_while_held += 1;
            }
            if ours && (!self.holding() || admitted_while_held >= HOLDER_PATIENCE) {
                admitted_while_held = 0;
                // Classified by the new schema, and nothing holds its seat (yet, or any more).
                let holder = self.send_holder();
                if let Some(old) = self
                    .holder
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .replace(holder)
                {
                    old.task.abort();
                }
            }
            assert!(
                Instant::now() < deadline,
                "{} not throttled after {APPLIED_WITHIN:?}: {answer:?}",
                self.identity.user()
            );
            tokio::time::sleep(PAUSE).await;
        }
    }

    /// Sends the request whose body never ends, from a task of its own on a connection of its
    /// own (kube's client speaks HTTP/1.1: one request at a time per connection).
    fn send_holder(&self) -> Holder {
        let config = self.identity.config();
        let connector = config
            .rustls_https_connector()
            .expect("a TLS connector for the test API server");
        let client: HyperClient<_, Unending> =
            HyperClient::builder(TokioExecutor::new()).build(connector);
        let uri = format!(
            "{}/apis/authentication.k8s.io/v1/selfsubjectreviews",
            config.cluster_url.to_string().trim_end_matches('/')
        );
        let (release, released) = oneshot::channel();
        let request = http::Request::post(uri)
            .header(
                http::header::AUTHORIZATION,
                format!("Bearer {}", self.identity.token()),
            )
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(Unending { released })
            .expect("a request");
        let ended = Arc::new(Mutex::new(None));
        let record = ended.clone();
        let task = tokio::spawn(async move {
            let how = match client.request(request).await {
                Ok(response) => format!("was answered {}", response.status()),
                Err(error) => format!("failed: {error}"),
            };
            *record.lock().unwrap_or_else(|e| e.into_inner()) = Some(how);
        });
        Holder {
            release,
            ended,
            task,
        }
    }
}

impl Drop for Throttled {
    fn drop(&mut self) {
        // A test that ends without releasing (a failed assertion): the held request goes with
        // it. The FlowSchema stays; it matches only this identity.
        if let Some(holder) = self.holder.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = holder.release.send(());
            holder.task.abort();
        }
    }
}

/// A request body that never yields a byte: it ends, with an error, only when released (or
/// dropped), which abandons the request.
struct Unending {
    released: oneshot::Receiver<()>,
}

impl http_body::Body for Unending {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match Pin::new(&mut self.released).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(_) => Poll::Ready(Some(Err("released".into()))),
        }
    }

    fn is_end_stream(&self) -> bool {
        false
    }
}
