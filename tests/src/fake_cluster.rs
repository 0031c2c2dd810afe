//! A stateful stand-in for the API server, for one namespaced kind, behind a real
//! `kube::Client`: it keeps objects with their generation and resourceVersion, serves LIST
//! and WATCH (a streamed body that `kube::runtime::watcher` reads), and takes server-side
//! apply PATCHes of the status subresource with their resourceVersion precondition.
//!
//! Every write goes through the API server's own libraries ([`crate::libraries`]): the
//! object is merged by sigs.k8s.io/structured-merge-diff (server-side apply and update, with
//! `metadata.managedFields` per manager as FieldsV1, conflicts and force) and validated
//! against the CRD's schema by kube-openapi's validator (422 Invalid with causes). An apply
//! that changes nothing, managed fields included, is not a write (no new resourceVersion,
//! no event). [`FakeCluster::validate_status`] adds a rule of the test's own on top.
//!
//! While faults are on, it injects them at random (from a seed): reset connections,
//! requests that time out (some after their write landed), 429 with `retryAfterSeconds`,
//! 500, spurious 409, rejected statuses (422, which the chokepoint answers with its
//! fallback), failed LISTs, watch streams cut short, compaction (watches from an old version
//! get 410 Gone and the watcher lists again) and watch events delivered late, so that the
//! controller's cache is stale.
//!
//! Every accepted status apply is checked: the `observedGeneration` of a full one, and of
//! every condition of any, must be the object's generation at that moment. A write computed
//! from a stale copy would break that; [`Stats::stale_writes`] counts them.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Client;
use serde_json::{Value, json};
use tokio::sync::Notify;

use crate::libraries::{Libraries, Outcome};

/// What the stand-in saw and did.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Requests received.
    pub requests: u64,
    /// LIST requests.
    pub lists: u64,
    /// WATCH requests.
    pub watches: u64,
    /// Status applies that changed an object, full and fallback.
    pub writes: u64,
    /// Status applies accepted that changed nothing (no new resourceVersion).
    pub unchanged_applies: u64,
    /// Accepted applies of the fallback manager that set conditions.
    pub fallback_writes: u64,
    /// Accepted empty applies of the fallback manager (its release) that freed its fields.
    pub releases: u64,
    /// Applies refused because the object changed since it was read.
    pub conflicts: u64,
    /// Applies without force refused with 409 because they would take fields of another
    /// manager (structured-merge-diff's conflicts).
    pub apply_conflicts: u64,
    /// Accepted status applies whose `observedGeneration` (of the status or of a
    /// condition) was not the object's generation.
    pub stale_writes: u64,
    /// Spec changes made by [`FakeCluster::bump`].
    pub spec_changes: u64,
    /// Injected: connections reset before the request was handled.
    pub resets: u64,
    /// Injected: requests that timed out before their write.
    pub timeouts: u64,
    /// Injected: requests that timed out after their write landed (the response was lost).
    pub lost_responses: u64,
    /// Injected: 429 Too Many Requests with `retryAfterSeconds`.
    pub throttled: u64,
    /// Injected: 500 Internal Server Error.
    pub server_errors: u64,
    /// Injected: 409 Conflict although the object had not changed.
    pub spurious_conflicts: u64,
    /// Injected: full status applies rejected with 422 Invalid.
    pub rejections: u64,
    /// Injected: LISTs that failed.
    pub failed_lists: u64,
    /// Injected: watch streams ended early.
    pub cut_watches: u64,
    /// Injected: compactions of the history.
    pub compactions: u64,
    /// Watches answered 410 Gone (after a compaction).
    pub gone: u64,
    /// Injected: watch events held back before delivery.
    pub delayed_events: u64,
    /// Status applies refused with 422: by the CRD's schema (kube-openapi) or by the
    /// validation rule ([`FakeCluster::validate_status`]).
    pub invalid: u64,
    /// Events recorded (`POST` to events.k8s.io).
    pub events: u64,
}

/// The fault rates, each a probability per request (or per watch event).
#[derive(Clone, Copy, Debug)]
pub struct Faults {
    /// Reset before handling.
    pub reset: f64,
    /// Time out (after 30 s) before the write.
    pub timeout: f64,
    /// Time out after the write landed.
    pub lost_response: f64,
    /// 429 with `retryAfterSeconds: 1`.
    pub throttle: f64,
    /// 500.
    pub server_error: f64,
    /// 409 although nothing changed.
    pub spurious_conflict: f64,
    /// A full status apply (not the fallback manager's) is rejected with 422.
    pub reject: f64,
    /// A LIST fails with 500.
    pub failed_list: f64,
    /// A watch stream ends after this event.
    pub cut_watch: f64,
    /// History is compacted after this write.
    pub compaction: f64,
    /// This watch event waits up to 2 s before delivery.
    pub delayed_event: f64,
}

impl Faults {
    /// No faults.
    pub const NONE: Faults = Faults {
        reset: 0.0,
        timeout: 0.0,
        lost_response: 0.0,
        throttle: 0.0,
        server_error: 0.0,
        spurious_conflict: 0.0,
        reject: 0.0,
        failed_list: 0.0,
        cut_watch: 0.0,
        compaction: 0.0,
        delayed_event: 0.0,
    };
}

struct State {
    objects: BTreeMap<String, Value>,
    /// Every change, in order: (resourceVersion, watch event line).
    history: Vec<(u64, String)>,
    /// Watches from before this version get 410 Gone.
    compacted: u64,
    version: u64,
    faults: Faults,
    /// Whether a body's `metadata.resourceVersion` is checked (the API server always does;
    /// off only to show what the check prevents).
    preconditions: bool,
    fail_next_list: bool,
    rng: u64,
    stats: Stats,
    /// What a status must satisfy, as the CRD's schema would say it.
    rule: Option<StatusRule>,
    /// Events recorded, in order.
    events: Vec<Value>,
    /// Status writes, by object.
    writes: BTreeMap<String, u64>,
}

/// A validation rule for a status: the message of the violation, if any.
type StatusRule = Arc<dyn Fn(&Value) -> Option<String> + Send + Sync>;

impl State {
    /// A number in [0, 1) from xorshift64*.
    fn random(&mut self) -> f64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        let value = self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (value >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, probability: f64) -> bool {
        probability > 0.0 && self.random() < probability
    }

    /// Stores `object` under a new resourceVersion and records the event.
    fn commit(&mut self, name: &str, mut object: Value, event: &str) -> Value {
        self.version += 1;
        object["metadata"]["resourceVersion"] = json!(self.version.to_string());
        let line = json!({"type": event, "object": object}).to_string() + "\n";
        self.history.push((self.version, line));
        self.objects.insert(name.to_owned(), object.clone());
        let compaction = self.faults.compaction;
        if self.chance(compaction) {
            self.compacted = self.version;
            self.stats.compactions += 1;
        }
        object
    }
}

/// The stand-in; clones share it.
#[derive(Clone)]
pub struct FakeCluster {
    state: Arc<Mutex<State>>,
    libraries: Arc<Libraries>,
    changed: Arc<Notify>,
    api_version: String,
    kind: String,
    plural: String,
    namespace: String,
}

/// The body of the stand-in's responses.
pub type Body = UnsyncBoxBody<Bytes, std::io::Error>;

/// A JSON response with `code`.
pub fn json_response(code: u16, value: &Value) -> http::Response<Body> {
    http::Response::builder()
        .status(code)
        .header("content-type", "application/json")
        .body(
            Full::new(Bytes::from(value.to_string()))
                .map_err(|never| match never {})
                .boxed_unsync(),
        )
        .expect("response")
}

/// An HTTP answer, or a transport failure.
enum Answer {
    Json(u16, Value),
    Stream(Body),
    Fail(std::io::ErrorKind),
}

impl FakeCluster {
    /// An empty cluster serving `crd`'s kind (at its storage version), objects in
    /// `namespace`; `seed` drives every random choice. Writes are merged and validated by
    /// the API server's libraries against the CRD's schema.
    ///
    /// # Panics
    /// When the CRD has no version, or the libraries are not installed (the message says
    /// how to install them).
    pub fn new(crd: &CustomResourceDefinition, namespace: &str, seed: u64) -> Self {
        let version = crd
            .spec
            .versions
            .iter()
            .find(|v| v.storage)
            .or(crd.spec.versions.first())
            .expect("the CRD has a version");
        let group = &crd.spec.group;
        Self {
            libraries: Arc::new(Libraries::start(crd, &version.name)),
            state: Arc::new(Mutex::new(State {
                objects: BTreeMap::new(),
                history: Vec::new(),
                compacted: 0,
                version: 1,
                faults: Faults::NONE,
                preconditions: true,
                fail_next_list: false,
                rng: seed | 1,
                stats: Stats::default(),
                rule: None,
                events: Vec::new(),
                writes: BTreeMap::new(),
            })),
            changed: Arc::new(Notify::new()),
            api_version: format!("{group}/{}", version.name),
            kind: crd.spec.names.kind.clone(),
            plural: crd.spec.names.plural.clone(),
            namespace: namespace.to_owned(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Creates an object named `name` with `spec`, at generation 1, as [`CREATOR`] does
    /// (an update of the main resource, validated and recorded in `managedFields`).
    ///
    /// # Panics
    /// When the API server's libraries refuse the object (a spec the CRD does not allow).
    pub fn create(&self, name: &str, spec: Value) {
        let object = json!({
            "apiVersion": self.api_version,
            "kind": self.kind,
            "metadata": {"name": name, "namespace": self.namespace, "uid": format!("uid-{name}"),
                         "generation": 1},
            "spec": spec,
        });
        let mut state = self.lock();
        let now = now(state.version);
        let object = match self
            .libraries
            .update(&Value::Null, &object, CREATOR, "", &now)
        {
            Outcome::Stored { object, .. } => object,
            Outcome::Refused { status, .. } => panic!("creating {name}: {status}"),
        };
        state.commit(name, object, "ADDED");
        drop(state);
        self.changed.notify_waiters();
    }

    /// Stores `object` as it is (status, generation and managedFields included), as if it
    /// had been created and written before: the starting point of a test that reconciles a
    /// given object. Its `resourceVersion` is kept when it has one, so a precondition taken
    /// from the same object holds.
    pub fn insert(&self, object: Value) {
        let name = object["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let version = object["metadata"]["resourceVersion"]
            .as_str()
            .and_then(|v| v.parse::<u64>().ok());
        let mut state = self.lock();
        match version {
            Some(version) => {
                state.version = state.version.max(version);
                let line = json!({"type": "ADDED", "object": object}).to_string() + "\n";
                state.history.push((version, line));
                state.objects.insert(name, object);
            }
            None => {
                state.commit(&name, object, "ADDED");
            }
        }
        drop(state);
        self.changed.notify_waiters();
    }

    /// Whether this stand-in answers `method` on `path`: the collection (LIST, WATCH), status
    /// applies and events. Anything else (a JSON patch of the object itself, say) is not
    /// modelled.
    pub fn serves(&self, method: &str, path: &str) -> bool {
        let collection = format!("/apis/{}/{}", self.api_version, self.plural);
        let item_prefix = format!(
            "/apis/{}/namespaces/{}/{}/",
            self.api_version, self.namespace, self.plural
        );
        match method {
            "GET" => path == collection,
            "POST" | "PATCH" if path.starts_with("/apis/events.k8s.io/v1/namespaces/") => true,
            "PATCH" => path.starts_with(&item_prefix) && path.ends_with("/status"),
            _ => false,
        }
    }

    /// Changes `name`'s spec with `change` and increments its generation.
    pub fn bump(&self, name: &str, change: impl FnOnce(&mut Value)) {
        let mut state = self.lock();
        let Some(stored) = state.objects.get(name) else {
            return;
        };
        let mut object = stored.clone();
        change(&mut object["spec"]);
        let generation = object["metadata"]["generation"].as_i64().unwrap_or(0) + 1;
        object["metadata"]["generation"] = json!(generation);
        let now = now(state.version);
        let object = match self.libraries.update(stored, &object, CREATOR, "", &now) {
            Outcome::Stored { object, .. } => object,
            Outcome::Refused { status, .. } => panic!("changing {name}: {status}"),
        };
        state.stats.spec_changes += 1;
        state.commit(name, object, "MODIFIED");
        drop(state);
        self.changed.notify_waiters();
    }

    /// Sets the fault rates from now on. When compactions are among them, one happens at
    /// once (so every running watch restarts at least once), and when failed LISTs are, the
    /// next LIST fails.
    pub fn set_faults(&self, faults: Faults) {
        let mut state = self.lock();
        state.faults = faults;
        if faults.compaction > 0.0 {
            state.compacted = state.version;
            state.stats.compactions += 1;
        }
        state.fail_next_list = faults.failed_list > 0.0;
        drop(state);
        self.changed.notify_waiters();
    }

    /// Compacts the history at a new resourceVersion, one that changed nothing here (as a
    /// write to another resource moves etcd's revision): every running watch ends, and its
    /// next watch, from the version it had reached, gets 410 Gone.
    pub fn compact(&self) {
        let mut state = self.lock();
        state.version += 1;
        state.compacted = state.version;
        state.stats.compactions += 1;
        drop(state);
        self.changed.notify_waiters();
    }

    /// Validates every status that an apply would store with `rule` too, beside the CRD's
    /// schema (a rule the schema cannot say, as a CEL rule or an admission webhook would):
    /// when `rule` returns a message, the apply is refused with 422 Invalid, naming the
    /// object and the message.
    pub fn validate_status(&self, rule: impl Fn(&Value) -> Option<String> + Send + Sync + 'static) {
        self.lock().rule = Some(Arc::new(rule));
    }

    /// Deletes `name` (an object without finalizers goes at once).
    pub fn delete(&self, name: &str) {
        let mut state = self.lock();
        let Some(mut object) = state.objects.remove(name) else {
            return;
        };
        state.version += 1;
        object["metadata"]["resourceVersion"] = json!(state.version.to_string());
        let line = json!({"type": "DELETED", "object": object}).to_string() + "\n";
        let version = state.version;
        state.history.push((version, line));
        drop(state);
        self.changed.notify_waiters();
    }

    /// `name` as stored, read into `K`.
    pub fn get<K: serde::de::DeserializeOwned>(&self, name: &str) -> Option<K> {
        let object = self.lock().objects.get(name).cloned()?;
        serde_json::from_value(object).ok()
    }

    /// How many status writes changed `name` so far.
    pub fn writes_of(&self, name: &str) -> u64 {
        self.lock().writes.get(name).copied().unwrap_or(0)
    }

    /// The events recorded so far.
    pub fn events(&self) -> Vec<Value> {
        self.lock().events.clone()
    }

    /// Ignores the resourceVersion precondition of applies from now on, unlike any API
    /// server: what a client that sends none would get.
    pub fn ignore_preconditions(&self) {
        self.lock().preconditions = false;
    }

    /// A number in [0, 1) from the cluster's seeded source.
    pub fn random(&self) -> f64 {
        self.lock().random()
    }

    /// Every object, by name.
    pub fn objects(&self) -> BTreeMap<String, Value> {
        self.lock()
            .objects
            .iter()
            .map(|(name, object)| (name.clone(), object.clone()))
            .collect()
    }

    /// The figures so far.
    pub fn stats(&self) -> Stats {
        self.lock().stats.clone()
    }

    /// A kube client whose requests this stand-in answers.
    pub fn client(&self) -> Client {
        let cluster = self.clone();
        let service = tower::service_fn(move |request: http::Request<kube::client::Body>| {
            let cluster = cluster.clone();
            async move {
                let (parts, body) = request.into_parts();
                let bytes = body
                    .collect()
                    .await
                    .map(|b| b.to_bytes())
                    .unwrap_or_default();
                cluster.serve(&parts, &bytes).await
            }
        });
        Client::new(service, self.namespace.clone())
    }

    /// The answer to one request, or the transport error it ends in.
    pub async fn serve(
        &self,
        parts: &http::request::Parts,
        body: &[u8],
    ) -> Result<http::Response<Body>, std::io::Error> {
        let query: BTreeMap<String, String> = parts
            .uri
            .query()
            .unwrap_or_default()
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.replace("%2F", "/")))
            .collect();
        let answer = self
            .answer(parts.method.as_str(), parts.uri.path(), &query, body)
            .await;
        match answer {
            Answer::Fail(kind) => Err(std::io::Error::from(kind)),
            Answer::Stream(body) => Ok(http::Response::builder()
                .status(200)
                .header("content-type", "application/json")
                .body(body)
                .expect("response")),
            Answer::Json(code, value) => Ok(json_response(code, &value)),
        }
    }

    async fn answer(
        &self,
        method: &str,
        path: &str,
        query: &BTreeMap<String, String>,
        body: &[u8],
    ) -> Answer {
        let collection = format!("/apis/{}/{}", self.api_version, self.plural);
        let item_prefix = format!(
            "/apis/{}/namespaces/{}/{}/",
            self.api_version, self.namespace, self.plural
        );
        self.lock().stats.requests += 1;
        match method {
            "GET" if path == collection && query.get("watch").is_some_and(|w| w == "true") => {
                self.watch(query)
            }
            "GET" if path == collection => self.list(),
            // kube's Recorder posts an event, or patches the series of one it posted.
            "POST" | "PATCH" if path.starts_with("/apis/events.k8s.io/v1/namespaces/") => {
                let event: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
                let mut state = self.lock();
                state.stats.events += 1;
                state.events.push(event.clone());
                Answer::Json(if method == "POST" { 201 } else { 200 }, event)
            }
            "PATCH" => match path
                .strip_prefix(&item_prefix)
                .and_then(|rest| rest.strip_suffix("/status"))
            {
                Some(name) => self.apply(name, query, body).await,
                None => not_found(path),
            },
            _ => not_found(path),
        }
    }

    fn list(&self) -> Answer {
        let mut state = self.lock();
        state.stats.lists += 1;
        let faults = state.faults;
        if std::mem::take(&mut state.fail_next_list) || state.chance(faults.failed_list) {
            state.stats.failed_lists += 1;
            return Answer::Json(500, status(500, "InternalError", "the list failed"));
        }
        let items: Vec<Value> = state.objects.values().cloned().collect();
        Answer::Json(
            200,
            json!({
                "apiVersion": self.api_version,
                "kind": format!("{}List", self.kind),
                "metadata": {"resourceVersion": state.version.to_string()},
                "items": items,
            }),
        )
    }

    fn watch(&self, query: &BTreeMap<String, String>) -> Answer {
        let from: u64 = query
            .get("resourceVersion")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let timeout = query
            .get("timeoutSeconds")
            .and_then(|v| v.parse().ok())
            .unwrap_or(290u64);
        let mut state = self.lock();
        state.stats.watches += 1;
        if from < state.compacted {
            state.stats.gone += 1;
            let line = json!({"type": "ERROR", "object": status(410, "Expired", "too old resource version")})
                .to_string()
                + "\n";
            let frames = futures::stream::iter([Ok(http_body::Frame::data(Bytes::from(line)))]);
            return Answer::Stream(BodyExt::boxed_unsync(StreamBody::new(frames)));
        }
        drop(state);
        let cluster = self.clone();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(timeout);
        let frames = futures::stream::unfold(from, move |cursor| {
            let cluster = cluster.clone();
            async move {
                loop {
                    let notified = cluster.changed.notified();
                    let next = {
                        let mut state = cluster.lock();
                        if cursor < state.compacted {
                            // Compacted under a running watch: the stream ends, and the
                            // watcher's next watch from `cursor` gets 410.
                            return None;
                        }
                        let at = state.history.partition_point(|(v, _)| *v <= cursor);
                        let next = state.history.get(at).cloned();
                        next.map(|(version, line)| {
                            let faults = state.faults;
                            let delay = state.chance(faults.delayed_event);
                            let cut = state.chance(faults.cut_watch);
                            if delay {
                                state.stats.delayed_events += 1;
                            }
                            if cut {
                                state.stats.cut_watches += 1;
                            }
                            let wait = if delay { state.random() * 2.0 } else { 0.0 };
                            (version, line, wait, cut)
                        })
                    };
                    match next {
                        Some((_, _, _, true)) => return None,
                        Some((version, line, wait, false)) => {
                            if wait > 0.0 {
                                tokio::time::sleep(Duration::from_secs_f64(wait)).await;
                            }
                            let frame: Result<_, std::io::Error> =
                                Ok(http_body::Frame::data(Bytes::from(line)));
                            return Some((frame, version));
                        }
                        None => {
                            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                                return None;
                            }
                        }
                    }
                }
            }
        });
        Answer::Stream(BodyExt::boxed_unsync(StreamBody::new(frames)))
    }

    async fn apply(&self, name: &str, query: &BTreeMap<String, String>, body: &[u8]) -> Answer {
        let Ok(patch) = serde_json::from_slice::<Value>(body) else {
            return Answer::Json(400, status(400, "BadRequest", "the body is not JSON"));
        };
        let manager = query.get("fieldManager").cloned().unwrap_or_default();
        let (timeout, lose_response) = {
            let mut state = self.lock();
            let faults = state.faults;
            if state.chance(faults.reset) {
                state.stats.resets += 1;
                return Answer::Fail(std::io::ErrorKind::ConnectionReset);
            }
            if state.chance(faults.throttle) {
                state.stats.throttled += 1;
                let mut answer = status(429, "TooManyRequests", "slow down");
                answer["details"] = json!({"retryAfterSeconds": 1});
                return Answer::Json(429, answer);
            }
            if state.chance(faults.server_error) {
                state.stats.server_errors += 1;
                return Answer::Json(
                    500,
                    status(500, "InternalError", "etcdserver: leader changed"),
                );
            }
            if state.chance(faults.spurious_conflict) {
                state.stats.spurious_conflicts += 1;
                return Answer::Json(409, status(409, "Conflict", "the object has been modified"));
            }
            // A status the rule refuses anyway gets the rule's own message, not a random one.
            let refused_anyway = state
                .rule
                .as_ref()
                .is_some_and(|rule| rule(&patch["status"]).is_some());
            if !manager.ends_with("-fallback") && !refused_anyway && state.chance(faults.reject) {
                state.stats.rejections += 1;
                let mut answer = status(
                    422,
                    "Invalid",
                    "Widget.example.com \"w\" is invalid: status.seenSize: Invalid value: \"integer\": rejected by the stand-in",
                );
                answer["details"] = json!({"causes": [{"field": "status.seenSize"}]});
                return Answer::Json(422, answer);
            }
            (
                state.chance(faults.timeout),
                state.chance(faults.lost_response),
            )
        };
        if timeout {
            self.lock().stats.timeouts += 1;
            tokio::time::sleep(Duration::from_secs(30)).await;
            return Answer::Fail(std::io::ErrorKind::TimedOut);
        }
        let force = query.get("force").is_some_and(|f| f == "true");
        let answer = self.write_status(name, &manager, force, &patch);
        if lose_response {
            self.lock().stats.lost_responses += 1;
            tokio::time::sleep(Duration::from_secs(30)).await;
            return Answer::Fail(std::io::ErrorKind::TimedOut);
        }
        answer
    }

    /// Server-side apply of a status by `manager`: the resourceVersion precondition here,
    /// the merge and the schema's validation by the API server's libraries, then the
    /// test's own rule.
    fn write_status(&self, name: &str, manager: &str, force: bool, patch: &Value) -> Answer {
        let mut state = self.lock();
        let Some(stored) = state.objects.get(name).cloned() else {
            return not_found(name);
        };
        let current = stored["metadata"]["resourceVersion"].clone();
        if let Some(expected) = patch["metadata"].get("resourceVersion")
            && *expected != current
            && state.preconditions
        {
            state.stats.conflicts += 1;
            return Answer::Json(
                409,
                status(
                    409,
                    "Conflict",
                    &format!(
                        "Operation cannot be fulfilled on {}.{} \"{name}\": the object has been \
                         modified; please apply your changes to the latest version and try again",
                        self.plural,
                        self.api_version.split('/').next().unwrap_or_default()
                    ),
                ),
            );
        }
        let now = now(state.version);
        let object = match self
            .libraries
            .apply(&stored, patch, manager, force, "status", &now)
        {
            Outcome::Stored { object, changed } => {
                if !changed {
                    state.stats.unchanged_applies += 1;
                    return Answer::Json(200, stored);
                }
                object
            }
            Outcome::Refused { code, status } => {
                match code {
                    409 => state.stats.apply_conflicts += 1,
                    422 => state.stats.invalid += 1,
                    _ => {}
                }
                return Answer::Json(code, status);
            }
        };
        if let Some(violation) = state.rule.clone().and_then(|rule| rule(&object["status"])) {
            state.stats.invalid += 1;
            let message = format!("{} \"{name}\" is invalid: {violation}", self.kind);
            return Answer::Json(422, status(422, "Invalid", &message));
        }
        let applied = &patch["status"];
        let generation = &stored["metadata"]["generation"];
        let fallback = manager.ends_with("-fallback");
        let stale_status = !fallback && applied["observedGeneration"] != *generation;
        let stale_condition = applied["conditions"].as_array().is_some_and(|conditions| {
            conditions.iter().any(|c| {
                c.get("observedGeneration")
                    .is_some_and(|observed| observed != generation)
            })
        });
        if stale_status || stale_condition {
            state.stats.stale_writes += 1;
        }
        let released = manages(&stored, manager) && !manages(&object, manager);
        match (fallback, released) {
            (true, true) => state.stats.releases += 1,
            (true, false) => state.stats.fallback_writes += 1,
            (false, _) => {}
        }
        state.stats.writes += 1;
        *state.writes.entry(name.to_owned()).or_default() += 1;
        let object = state.commit(name, object, "MODIFIED");
        drop(state);
        self.changed.notify_waiters();
        Answer::Json(200, object)
    }
}

/// The field manager that creates objects and changes their specs.
pub const CREATOR: &str = "kondition-tests";

/// Whether `manager` has an entry in `object`'s `managedFields`.
fn manages(object: &Value, manager: &str) -> bool {
    object["metadata"]["managedFields"]
        .as_array()
        .is_some_and(|entries| entries.iter().any(|e| e["manager"] == manager))
}

/// The time written into `managedFields`: derived from the resourceVersion, so that runs
/// are reproducible.
fn now(version: u64) -> String {
    let second = 1_767_225_600 + version as i64; // 2026-01-01T00:00:00Z onwards
    k8s_openapi::jiff::Timestamp::from_second(second)
        .map(|t| t.to_string())
        .unwrap_or_default()
}

fn status(code: u16, reason: &str, message: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
           "code": code, "reason": reason, "message": message})
}

fn not_found(what: &str) -> Answer {
    Answer::Json(404, status(404, "NotFound", &format!("{what} not found")))
}
