//! Faults injected between a `kube::Client` and the real API server ([`faulty`]), built like
//! [`crate::recording::recorded`]: a tower service in front of the client that either forwards
//! each request to the server or does one of these instead, per request ([`Faults::next`])
//! or at random from a seed ([`Faults::random`]):
//!
//! - [`Fault::LoseResponse`]: the request is forwarded and the server's answer awaited in
//!   full (a watch's start), then dropped; the client gets a transport error. A write
//!   **landed** (the server holds it, under a new `resourceVersion`) although the client saw
//!   it fail: the lost response.
//! - [`Fault::Reset`]: the connection is reset before the request is forwarded; the client
//!   gets a transport error and the server never sees the request: a write **did not land**.
//! - [`Fault::Delay`]: the request waits on tokio's clock (`tokio::time::sleep`, which a
//!   paused clock drives) and is then forwarded.
//! - [`Fault::After`]: the request waits for a future of the test's own before it is
//!   forwarded, such as a second client's write, so that the request reaches the server after
//!   it: a `409 Conflict` then comes from the server's own `resourceVersion` check.
//! - [`Fault::Timeout`]: the request waits on tokio's clock and then fails as a client-side
//!   timeout, without being forwarded.
//! - [`Fault::Throttle`]: `429 TooManyRequests` with `details.retryAfterSeconds` (and a
//!   `Retry-After` header), made up here without forwarding.
//! - [`Fault::ServerError`]: `500 InternalError`, made up here without forwarding; its message
//!   says it was injected.
//! - [`Fault::CutAfter`]: the request is forwarded and the answer's body ends with a
//!   transport error after that many frames: a watch stream cut short. [`Faults::cut_watches`]
//!   cuts the streams running now, and [`Faults::cut_and_hold`] also holds the watch that
//!   resumes after the cut until the test has, say, compacted etcd.
//!
//! The two made-up answers (429 and 500) are the only answers this layer invents; everything
//! else the client reads comes from the real server. Conflicts come from real concurrent
//! writes, rejections from the CRD's real schema, 410 Gone from a real compaction
//! (`cluster().compact()`) under a watch that then resumes from a version before it. Only a
//! watch that kube-apiserver serves from etcd gets that 410, such as one of Events (which it
//! does not cache); a watch of a custom resource is served from its watch cache, which still
//! holds the history etcd dropped, and gets the events since (faults.rs shows both).
//! [`Faults::drop_preconditions`] is the one change to a request: status applies lose their
//! `metadata.resourceVersion`, to show what that precondition prevents.
//!
//! Every request is kept in a journal ([`Exchange`]): what the client sent, the fault, the
//! status code the real server answered (if the request reached it), the code the client got,
//! the server's answer to a write, and the `ERROR` events of a watch stream.

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures::task::AtomicWaker;
use http_body::{Body as HttpBody, Frame, SizeHint};
use http_body_util::BodyExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::client::Body;
use kube::{Client, CustomResourceExt};
use serde_json::{Value, json};
use tower::{BoxError, Service};

use crate::kinds::Widget;
use crate::recording::percent_decode;

/// What to do with one request instead of (or before) forwarding it as it is.
pub enum Fault {
    /// Forward the request, await the server's whole answer, then drop it: the client gets a
    /// transport error although the server did what was asked (a write landed).
    LoseResponse,
    /// Reset the connection before forwarding: the server never sees the request.
    Reset,
    /// Wait this long on tokio's clock, then forward.
    Delay(Duration),
    /// Wait for this future (another client's write, say), then forward.
    After(Pin<Box<dyn Future<Output = ()> + Send>>),
    /// Wait this long on tokio's clock, then fail as a timeout without forwarding.
    Timeout(Duration),
    /// Answer `429 TooManyRequests` with this `retryAfterSeconds`, without forwarding.
    Throttle {
        /// `details.retryAfterSeconds` of the answer, and its `Retry-After` header.
        retry_after_seconds: u32,
    },
    /// Answer `500 InternalError`, without forwarding.
    ServerError,
    /// Forward; the answer's body ends with a transport error after this many frames.
    CutAfter(usize),
}

impl Fault {
    /// Which kind of fault this is.
    pub fn kind(&self) -> FaultKind {
        match self {
            Fault::LoseResponse => FaultKind::LostResponse,
            Fault::Reset => FaultKind::Reset,
            Fault::Delay(_) => FaultKind::Delay,
            Fault::After(_) => FaultKind::After,
            Fault::Timeout(_) => FaultKind::Timeout,
            Fault::Throttle { .. } => FaultKind::Throttle,
            Fault::ServerError => FaultKind::ServerError,
            Fault::CutAfter(_) => FaultKind::Cut,
        }
    }
}

impl std::fmt::Debug for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Delay(d) => write!(f, "Delay({d:?})"),
            Fault::Timeout(d) => write!(f, "Timeout({d:?})"),
            Fault::Throttle {
                retry_after_seconds,
            } => write!(f, "Throttle({retry_after_seconds}s)"),
            Fault::CutAfter(n) => write!(f, "CutAfter({n})"),
            other => write!(f, "{:?}", other.kind()),
        }
    }
}

/// The kind of a [`Fault`], as the journal records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    /// [`Fault::LoseResponse`].
    LostResponse,
    /// [`Fault::Reset`].
    Reset,
    /// [`Fault::Delay`].
    Delay,
    /// [`Fault::After`].
    After,
    /// [`Fault::Timeout`].
    Timeout,
    /// [`Fault::Throttle`].
    Throttle,
    /// [`Fault::ServerError`].
    ServerError,
    /// [`Fault::CutAfter`], or a stream cut by [`Faults::cut_watches`].
    Cut,
}

/// A request as the client sent it.
#[derive(Clone, Debug)]
pub struct Sent {
    /// The HTTP method.
    pub method: String,
    /// The path.
    pub path: String,
    /// The query, decoded pairs in order.
    pub query: Vec<(String, String)>,
    /// The content-type header.
    pub content_type: String,
    /// The JSON body (null if none).
    pub body: Value,
}

impl Sent {
    /// The value of query parameter `name`, if given.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The field manager (`fieldManager`), if given.
    pub fn manager(&self) -> Option<&str> {
        self.param("fieldManager")
    }

    /// Whether this is a watch (a GET with `watch=true`).
    pub fn is_watch(&self) -> bool {
        self.method == "GET" && matches!(self.param("watch"), Some("true" | "1"))
    }

    /// Whether this is a GET of a collection that is not a watch: a LIST.
    pub fn is_list(&self) -> bool {
        self.method == "GET" && !self.is_watch() && self.name().is_none()
    }

    /// The resource (plural) the path names, after its namespace if it has one.
    pub fn resource(&self) -> Option<&str> {
        self.segments().first().copied()
    }

    /// The object's name the path names, if any.
    pub fn name(&self) -> Option<&str> {
        self.segments().get(1).copied()
    }

    /// The subresource the path names (`status`), if any.
    pub fn subresource(&self) -> Option<&str> {
        self.segments().get(2).copied()
    }

    /// Whether this is a server-side apply of a status subresource.
    pub fn is_status_apply(&self) -> bool {
        self.method == "PATCH"
            && self.subresource() == Some("status")
            && self.content_type.starts_with("application/apply-patch")
    }

    /// Whether this is a status apply that carries a `status` (the release of a field
    /// manager carries none).
    pub fn carries_status(&self) -> bool {
        self.body.get("status").is_some()
    }

    /// The path's segments after `/api/v1` or `/apis/<group>/<version>` and after
    /// `namespaces/<namespace>`: resource, name, subresource.
    fn segments(&self) -> Vec<&str> {
        let mut segments: Vec<&str> = self.path.split('/').filter(|s| !s.is_empty()).collect();
        let skip = match segments.first() {
            Some(&"api") => 2,
            Some(&"apis") => 3,
            _ => 0,
        };
        segments.drain(..skip.min(segments.len()));
        if segments.first() == Some(&"namespaces") && segments.len() > 2 {
            segments.drain(..2);
        }
        segments
    }
}

/// One request and what came of it.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// The request as the client sent it.
    pub sent: Sent,
    /// The fault injected, if any.
    pub fault: Option<FaultKind>,
    /// Whether the request was forwarded to the server.
    pub forwarded: bool,
    /// The status code the real server answered (`None`: not forwarded, or no answer yet).
    pub server: Option<u16>,
    /// The status code the client got (`None`: a transport error, or no answer yet): the
    /// server's, or a made-up 429 or 500.
    pub client: Option<u16>,
    /// The server's answer to a request other than a GET (for a status apply: the object
    /// right after it), as JSON.
    pub answer: Option<Value>,
    /// The `code` of every `ERROR` event the server sent in a watch stream (410 Gone after a
    /// compaction).
    pub watch_errors: Vec<u16>,
    /// How many events a watch stream delivered to the client.
    pub watch_events: usize,
    /// Whether this layer ended the answer's body early ([`Fault::CutAfter`],
    /// [`Faults::cut_watches`]).
    pub cut: bool,
    /// Whether the answer is a stream (a watch) being delivered now.
    pub streaming: bool,
}

/// How often each fault is injected at random: probabilities per request (one fault at
/// most per request; their sum must not exceed 1).
#[derive(Clone, Copy, Debug)]
pub struct Rates {
    /// [`Fault::LoseResponse`].
    pub lose_response: f64,
    /// [`Fault::Reset`].
    pub reset: f64,
    /// [`Fault::Delay`] of up to [`Rates::max_delay`].
    pub delay: f64,
    /// [`Fault::Timeout`] after up to [`Rates::max_delay`].
    pub timeout: f64,
    /// [`Fault::Throttle`] with `retryAfterSeconds: 1`.
    pub throttle: f64,
    /// [`Fault::ServerError`].
    pub server_error: f64,
    /// [`Fault::CutAfter`] a number of frames from 1 to 64; watches only.
    pub cut_watch: f64,
    /// The longest delay (and timeout).
    pub max_delay: Duration,
}

impl Rates {
    /// No faults.
    pub const NONE: Rates = Rates {
        lose_response: 0.0,
        reset: 0.0,
        delay: 0.0,
        timeout: 0.0,
        throttle: 0.0,
        server_error: 0.0,
        cut_watch: 0.0,
        max_delay: Duration::ZERO,
    };
}

/// Which requests a scripted or random fault applies to.
type Target = Box<dyn Fn(&Sent) -> bool + Send + Sync>;

/// The controls and the journal of a [`faulty`] client; clones share them.
#[derive(Clone)]
pub struct Faults(Arc<Shared>);

struct Shared {
    state: Mutex<State>,
    /// Bumped whenever the journal changes, for [`Faults::wait_for`].
    changed: tokio::sync::watch::Sender<u64>,
}

struct State {
    scripted: VecDeque<(Target, Fault)>,
    random: Option<Random>,
    drop_preconditions: bool,
    journal: Vec<Exchange>,
    /// Streams being delivered: their journal index and their cut switch.
    streams: Vec<(usize, Weak<CutSwitch>)>,
}

impl State {
    /// Cuts the streams being delivered whose request `target` accepts; returns how many.
    fn cut(&mut self, target: &dyn Fn(&Sent) -> bool) -> usize {
        let mut cut = 0;
        let State {
            streams, journal, ..
        } = self;
        streams.retain(|(index, switch)| {
            let Some(switch) = switch.upgrade() else {
                return false;
            };
            if target(&journal[*index].sent) {
                switch.cut();
                journal[*index].streaming = false;
                cut += 1;
                false
            } else {
                true
            }
        });
        cut
    }
}

/// Makes a fault, drawing what it needs.
type MakeFault = fn(&mut Random) -> Fault;

struct Random {
    rng: u64,
    rates: Rates,
    target: Target,
}

impl Random {
    /// A number in [0, 1) from xorshift64*.
    fn next(&mut self) -> f64 {
        self.rng ^= self.rng >> 12;
        self.rng ^= self.rng << 25;
        self.rng ^= self.rng >> 27;
        let value = self.rng.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (value >> 11) as f64 / (1u64 << 53) as f64
    }

    fn draw(&mut self, sent: &Sent) -> Option<Fault> {
        if !(self.target)(sent) {
            return None;
        }
        let rates = self.rates;
        let watch = sent.is_watch();
        let choices: [(f64, MakeFault); 7] = [
            (rates.lose_response, |_| Fault::LoseResponse),
            (rates.reset, |_| Fault::Reset),
            (rates.delay, |r| {
                Fault::Delay(r.rates.max_delay.mul_f64(r.next()))
            }),
            (rates.timeout, |r| {
                Fault::Timeout(r.rates.max_delay.mul_f64(r.next()))
            }),
            (rates.throttle, |_| Fault::Throttle {
                retry_after_seconds: 1,
            }),
            (rates.server_error, |_| Fault::ServerError),
            (if watch { rates.cut_watch } else { 0.0 }, |r| {
                // 1 to 64 frames.
                Fault::CutAfter(1 + (r.next() * 64.0) as usize)
            }),
        ];
        let mut point = self.next();
        for (rate, make) in choices {
            if point < rate {
                return Some(make(self));
            }
            point -= rate;
        }
        None
    }
}

impl Faults {
    /// The next request for which `target` is true gets `fault` (scripted faults are matched
    /// in the order given, before any random one).
    pub fn next(&self, target: impl Fn(&Sent) -> bool + Send + Sync + 'static, fault: Fault) {
        self.state().scripted.push_back((Box::new(target), fault));
    }

    /// From now on, each request for which `target` is true gets a fault at random, at
    /// `rates`, drawn from `seed`.
    pub fn random(
        &self,
        seed: u64,
        rates: Rates,
        target: impl Fn(&Sent) -> bool + Send + Sync + 'static,
    ) {
        self.state().random = Some(Random {
            // xorshift never leaves 0.
            rng: seed.max(1),
            rates,
            target: Box::new(target),
        });
    }

    /// No more random faults (scripted ones still wait for their request).
    pub fn calm(&self) {
        self.state().random = None;
    }

    /// From now on, status applies reach the server without their `metadata.resourceVersion`
    /// (the journal keeps what the client sent): what a status writer without the
    /// precondition would send.
    pub fn drop_preconditions(&self) {
        self.state().drop_preconditions = true;
    }

    /// Ends every stream being delivered now whose request `target` accepts, with a
    /// transport error at its next frame (or at once if it waits for one); returns how many.
    pub fn cut_watches(&self, target: impl Fn(&Sent) -> bool) -> usize {
        self.state().cut(&target)
    }

    /// As [`Faults::cut_watches`], and if any stream was cut, the next request `target`
    /// accepts (the watch resumed after the cut) waits for `until` before it is forwarded
    /// ([`Fault::After`]). Both happen under one lock: no such request slips in between.
    pub fn cut_and_hold(
        &self,
        target: impl Fn(&Sent) -> bool + Send + Sync + 'static,
        until: impl Future<Output = ()> + Send + 'static,
    ) -> usize {
        let mut state = self.state();
        let cut = state.cut(&target);
        if cut > 0 {
            state
                .scripted
                .push_front((Box::new(target), Fault::After(Box::pin(until))));
        }
        cut
    }

    /// Every exchange so far, in the order the requests were sent.
    pub fn journal(&self) -> Vec<Exchange> {
        self.state().journal.clone()
    }

    /// `f` of the journal so far, without copying it.
    pub fn inspect<R>(&self, f: impl FnOnce(&[Exchange]) -> R) -> R {
        f(&self.state().journal)
    }

    /// How many exchanges so far had a fault of `kind`; for [`FaultKind::Cut`], how many
    /// streams this layer did end (a stream that was to be cut after more frames than it
    /// delivered was not).
    pub fn count(&self, kind: FaultKind) -> usize {
        self.inspect(|journal| {
            journal
                .iter()
                .filter(|e| match kind {
                    FaultKind::Cut => e.cut,
                    kind => e.fault == Some(kind),
                })
                .count()
        })
    }

    /// Returns once `condition` holds of the journal: checked now and after every change to
    /// it, never on a timer.
    pub async fn wait_for(&self, condition: impl Fn(&[Exchange]) -> bool) {
        let mut changes = self.0.changed.subscribe();
        loop {
            if self.inspect(&condition) {
                return;
            }
            // The sender lives as long as `self`.
            let _ = changes.changed().await;
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records `sent` and decides its fault.
    fn begin(&self, sent: Sent) -> (usize, Option<Fault>, bool) {
        let mut state = self.state();
        let index = state.scripted.iter().position(|(target, _)| target(&sent));
        let fault = match index {
            Some(i) => state.scripted.remove(i).map(|(_, fault)| fault),
            None => state.random.as_mut().and_then(|r| r.draw(&sent)),
        };
        let drop_precondition = state.drop_preconditions && sent.is_status_apply();
        state.journal.push(Exchange {
            sent,
            fault: fault.as_ref().map(Fault::kind),
            forwarded: false,
            server: None,
            client: None,
            answer: None,
            watch_errors: Vec::new(),
            watch_events: 0,
            cut: false,
            streaming: false,
        });
        let index = state.journal.len() - 1;
        drop(state);
        self.bump();
        (index, fault, drop_precondition)
    }

    fn update(&self, index: usize, f: impl FnOnce(&mut Exchange)) {
        if let Some(exchange) = self.state().journal.get_mut(index) {
            f(exchange);
        }
        self.bump();
    }

    /// As [`Faults::update`], and registers the answer's stream under the same lock.
    fn update_with_stream(
        &self,
        index: usize,
        switch: Weak<CutSwitch>,
        f: impl FnOnce(&mut Exchange),
    ) {
        {
            let mut state = self.state();
            state.streams.push((index, switch));
            if let Some(exchange) = state.journal.get_mut(index) {
                f(exchange);
            }
        }
        self.bump();
    }

    fn bump(&self) {
        self.0.changed.send_modify(|n| *n += 1);
    }
}

/// `client` with faults: a client that sends each request through `client` unless the
/// returned [`Faults`] say otherwise, and journals it. No faults until told.
pub fn faulty(client: Client) -> (Client, Faults) {
    let faults = Faults(Arc::new(Shared {
        state: Mutex::new(State {
            scripted: VecDeque::new(),
            random: None,
            drop_preconditions: false,
            journal: Vec::new(),
            streams: Vec::new(),
        }),
        changed: tokio::sync::watch::Sender::new(0),
    }));
    let namespace = client.default_namespace().to_owned();
    let service = Inject {
        client,
        faults: faults.clone(),
    };
    (Client::new(service, namespace), faults)
}

/// The Widget CRD as the fault tests install it: that of [`Widget`], whose schema also says
/// what its status means, `status.seenSize >= 0` (a size is never negative), so that the real
/// server rejects a negative one.
pub fn widget_crd() -> CustomResourceDefinition {
    let mut crd = serde_json::to_value(Widget::crd()).expect("CRD JSON");
    for version in crd["spec"]["versions"].as_array_mut().into_iter().flatten() {
        let seen_size = &mut version["schema"]["openAPIV3Schema"]["properties"]["status"]["properties"]
            ["seenSize"];
        assert!(seen_size.is_object(), "Widget's status has seenSize");
        seen_size["minimum"] = json!(0);
    }
    serde_json::from_value(crd).expect("a CRD")
}

/// The service [`faulty`] makes.
#[derive(Clone)]
struct Inject {
    client: Client,
    faults: Faults,
}

impl Service<http::Request<Body>> for Inject {
    type Response = http::Response<Answer>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        // The client under it waits for its own readiness in `send`.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let Inject { client, faults } = self.clone();
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let bytes = body.collect().await?.to_bytes();
            let sent = Sent {
                method: parts.method.to_string(),
                path: parts.uri.path().to_owned(),
                query: decode_query(parts.uri.query().unwrap_or_default()),
                content_type: parts
                    .headers
                    .get(http::header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned(),
                body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
            };
            let (index, fault, drop_precondition) = faults.begin(sent.clone());
            let bytes = if drop_precondition {
                let mut body = sent.body.clone();
                if let Some(metadata) = body["metadata"].as_object_mut() {
                    metadata.remove("resourceVersion");
                }
                Bytes::from(body.to_string())
            } else {
                bytes
            };
            let request = http::Request::from_parts(parts, Body::from(bytes.to_vec()));
            let forward = Forward {
                client: &client,
                faults: &faults,
                index,
                sent: &sent,
                delivered: !matches!(fault, Some(Fault::LoseResponse)),
            };
            match fault {
                None => forward.send(request, None).await,
                Some(Fault::Delay(delay)) => {
                    tokio::time::sleep(delay).await;
                    forward.send(request, None).await
                }
                Some(Fault::After(first)) => {
                    first.await;
                    forward.send(request, None).await
                }
                Some(Fault::CutAfter(frames)) => forward.send(request, Some(frames)).await,
                Some(Fault::LoseResponse) => {
                    let answer = forward.send(request, None).await?;
                    // The whole answer arrived (a write is committed before it is sent); the
                    // client never sees it. A stream stays open until dropped here.
                    if !sent.is_watch() {
                        answer.into_body().collect().await?;
                    }
                    Err(error(
                        io::ErrorKind::ConnectionAborted,
                        "the answer was lost",
                    ))
                }
                Some(Fault::Reset) => Err(error(
                    io::ErrorKind::ConnectionReset,
                    "connection reset before the request was sent",
                )),
                Some(Fault::Timeout(after)) => {
                    tokio::time::sleep(after).await;
                    Err(error(io::ErrorKind::TimedOut, "the request timed out"))
                }
                Some(Fault::Throttle {
                    retry_after_seconds,
                }) => {
                    faults.update(index, |e| e.client = Some(429));
                    Ok(made_up(
                        429,
                        &json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
                            "status": "Failure", "reason": "TooManyRequests", "code": 429,
                            "message": "Too many requests, please try again later.",
                            "details": {"retryAfterSeconds": retry_after_seconds}}),
                        Some(retry_after_seconds),
                    ))
                }
                Some(Fault::ServerError) => {
                    faults.update(index, |e| e.client = Some(500));
                    Ok(made_up(
                        500,
                        &json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
                            "status": "Failure", "reason": "InternalError", "code": 500,
                            "message": "Internal error occurred: injected by kondition_tests::faults",
                            "details": {"causes": [{"message": "injected by kondition_tests::faults"}]}}),
                        None,
                    ))
                }
            }
        })
    }
}

/// Sends one request to the server and journals its answer.
struct Forward<'a> {
    client: &'a Client,
    faults: &'a Faults,
    index: usize,
    sent: &'a Sent,
    /// Whether the client will get the answer (not when it is lost).
    delivered: bool,
}

impl Forward<'_> {
    /// Forwards `request`; a watch's answer streams through (cut after `cut_after` frames if
    /// given), any other answer is read whole first.
    async fn send(
        self,
        request: http::Request<Body>,
        cut_after: Option<usize>,
    ) -> Result<http::Response<Answer>, BoxError> {
        let Forward {
            client,
            faults,
            index,
            sent,
            delivered,
        } = self;
        faults.update(index, |e| e.forwarded = true);
        let response = client.send(request).await?;
        let code = response.status().as_u16();
        let answered = |e: &mut Exchange| {
            e.server = Some(code);
            e.client = delivered.then_some(code);
        };
        let (parts, body) = response.into_parts();
        if sent.is_watch() || cut_after.is_some() {
            let switch = Arc::new(CutSwitch::default());
            // Registered as the answer is journaled: a test that sees the answer can cut it.
            faults.update_with_stream(index, Arc::downgrade(&switch), |e| {
                answered(e);
                e.streaming = true;
            });
            let stream = Stream {
                body: Some(body),
                switch,
                frames_left: cut_after,
                line: Vec::new(),
                faults: faults.clone(),
                index,
                ended: false,
            };
            return Ok(http::Response::from_parts(parts, Answer::Stream(stream)));
        }
        faults.update(index, answered);
        let bytes = body.collect().await?.to_bytes();
        if sent.method != "GET" {
            let answer = serde_json::from_slice(&bytes).ok();
            faults.update(index, |e| e.answer = answer);
        }
        Ok(http::Response::from_parts(
            parts,
            Answer::Whole(Some(bytes)),
        ))
    }
}

fn error(kind: io::ErrorKind, message: &str) -> BoxError {
    Box::new(io::Error::new(kind, message.to_owned()))
}

/// A made-up answer: `code` with a JSON `Status` body.
fn made_up(code: u16, status: &Value, retry_after: Option<u32>) -> http::Response<Answer> {
    let mut builder = http::Response::builder()
        .status(code)
        .header(http::header::CONTENT_TYPE, "application/json");
    if let Some(seconds) = retry_after {
        builder = builder.header(http::header::RETRY_AFTER, seconds.to_string());
    }
    builder
        .body(Answer::Whole(Some(Bytes::from(status.to_string()))))
        .expect("a response")
}

/// The body of an answer the client reads.
enum Answer {
    /// Read whole already.
    Whole(Option<Bytes>),
    /// Streamed from the server, as a watch is.
    Stream(Stream),
}

/// Ends a stream from outside.
#[derive(Default)]
struct CutSwitch {
    cut: AtomicBool,
    waker: AtomicWaker,
}

impl CutSwitch {
    fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        self.waker.wake();
    }
}

/// A streamed answer: frames pass through, `ERROR` events are journaled, and it ends with
/// a transport error when cut.
struct Stream {
    body: Option<Body>,
    switch: Arc<CutSwitch>,
    frames_left: Option<usize>,
    /// The part of a line (one watch event) received so far.
    line: Vec<u8>,
    faults: Faults,
    index: usize,
    ended: bool,
}

impl Stream {
    /// Ends the stream: its connection is dropped, the client gets a transport error.
    fn cut(&mut self) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        self.body = None;
        self.ended = true;
        self.faults.update(self.index, |e| {
            e.cut = true;
            e.streaming = false;
        });
        Poll::Ready(Some(Err(error(
            io::ErrorKind::ConnectionAborted,
            "the stream was cut",
        ))))
    }

    /// Journals the watch events that `data` completes.
    fn scan(&mut self, data: &[u8]) {
        let mut events = 0;
        let mut errors = Vec::new();
        for &byte in data {
            if byte != b'\n' {
                self.line.push(byte);
                continue;
            }
            events += 1;
            // `{"type":"ERROR","object":{...Status, "code": 410}}`: only error lines parsed.
            if self.line.windows(7).any(|w| w == b"\"ERROR\"")
                && let Ok(event) = serde_json::from_slice::<Value>(&self.line)
                && event["type"] == "ERROR"
            {
                let code = event["object"]["code"].as_u64().unwrap_or_default();
                errors.push(u16::try_from(code).unwrap_or_default());
            }
            self.line.clear();
        }
        if events > 0 {
            self.faults.update(self.index, |e| {
                e.watch_events += events;
                e.watch_errors.extend(errors);
            });
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        if !self.ended {
            self.faults.update(self.index, |e| e.streaming = false);
        }
    }
}

impl HttpBody for Answer {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let stream = match self.get_mut() {
            Answer::Whole(bytes) => return Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Answer::Stream(stream) => stream,
        };
        if stream.ended {
            return Poll::Ready(None);
        }
        stream.switch.waker.register(cx.waker());
        if stream.switch.cut.load(Ordering::SeqCst) || stream.frames_left == Some(0) {
            return stream.cut();
        }
        let Some(body) = stream.body.as_mut() else {
            return Poll::Ready(None);
        };
        match Pin::new(body).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(left) = stream.frames_left.as_mut() {
                    *left -= 1;
                }
                if let Some(data) = frame.data_ref() {
                    let data = data.clone();
                    stream.scan(&data);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(error))) => Poll::Ready(Some(Err(Box::new(error)))),
            Poll::Ready(None) => {
                stream.ended = true;
                stream.faults.update(stream.index, |e| e.streaming = false);
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Answer::Whole(bytes) => bytes.is_none(),
            Answer::Stream(stream) => stream.ended,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Answer::Whole(Some(bytes)) => SizeHint::with_exact(bytes.len() as u64),
            Answer::Whole(None) => SizeHint::with_exact(0),
            Answer::Stream(_) => SizeHint::default(),
        }
    }
}

/// A query string's pairs, `%XX` escapes and `+` decoded.
fn decode_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sent(method: &str, path: &str, query: &str) -> Sent {
        Sent {
            method: method.into(),
            path: path.into(),
            query: decode_query(query),
            content_type: "application/apply-patch+yaml".into(),
            body: Value::Null,
        }
    }

    #[test]
    fn paths_name_their_resource_object_and_subresource() {
        let apply = sent(
            "PATCH",
            "/apis/example.com/v1/namespaces/ns/widgets/w1/status",
            "fieldManager=example.com%2Fwidget-controller&force=true",
        );
        assert!(apply.is_status_apply());
        assert_eq!(
            (apply.resource(), apply.name(), apply.subresource()),
            (Some("widgets"), Some("w1"), Some("status"))
        );
        assert_eq!(apply.manager(), Some("example.com/widget-controller"));
        let watch = sent(
            "GET",
            "/apis/example.com/v1/namespaces/ns/widgets",
            "watch=true&resourceVersion=5",
        );
        assert!(watch.is_watch() && !watch.is_list());
        let list = sent("GET", "/api/v1/namespaces/ns/configmaps", "limit=500");
        assert!(list.is_list());
        assert_eq!(list.resource(), Some("configmaps"));
        assert_eq!(
            sent("GET", "/api/v1/namespaces", "").resource(),
            Some("namespaces")
        );
    }

    #[test]
    fn random_faults_follow_their_rates_and_seed() {
        let rates = Rates {
            reset: 0.5,
            ..Rates::NONE
        };
        let draw = |seed| {
            let mut random = Random {
                rng: seed,
                rates,
                target: Box::new(|_: &Sent| true),
            };
            let request = sent("GET", "/api/v1/namespaces/ns/configmaps", "");
            (0..1_000)
                .map(|_| random.draw(&request).is_some())
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7), "a seed replays");
        let resets = draw(7).into_iter().filter(|&r| r).count();
        assert!((400..600).contains(&resets), "{resets}");
    }
}
