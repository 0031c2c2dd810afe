//! A `kube::Client` that records every request it sends (method, path,
//! decoded query, content type, JSON body) and the status code of its answer, and passes both
//! through unchanged. The answers come from the real API server; the record is what lets a
//! test assert the exact requests a controller sent.
//!
//! Opt-in, off by default: when `KONDITION_RECORD_REQUESTS` names a folder, each record is
//! also appended to `<folder>/<test>.txt` when its last clone is dropped or it is cleared, one
//! line per request in the order sent: the recorder's number in the test (`c1`, `c2`, ...),
//! method, path, query (pairs sorted), answer code (`-` if none came) and the preconditions
//! its body's metadata carries (`pre=rv,uid`: a `resourceVersion`, a `uid`; `pre=-`: none).
//! What varies from run to run is normalised (a namespace's `-<n>` suffix, an Event name's hex suffix,
//! resourceVersion and UID values), so that two runs, or two revisions, can be diffed
//! (`bench/request_sequences.sh`). Unset, nothing is written and nothing else changes.

use std::collections::HashMap;
use std::future::Future;
use std::io::Write;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use http_body_util::BodyExt;
use kube::client::Body;
use kube::client::retry::RetryPolicy;
use kube::{Client, Config};
use serde_json::Value;
use tower::{BoxError, Service};

/// One request the client sent.
#[derive(Debug, Clone)]
pub struct Received {
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
    /// The status code of the answer; `None` when no answer came (a transport error).
    pub status: Option<u16>,
}

impl Received {
    /// The value of query parameter `name`, if given.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether this is a write (anything but GET), as opposed to a read or a watch.
    pub fn is_write(&self) -> bool {
        self.method != "GET"
    }
}

/// The requests a recorded client sent, in order; clones share the record.
#[derive(Clone, Default)]
pub struct Requests(Arc<Log>);

/// A record, and where it is dumped (see the module's header) when it is dropped or cleared.
struct Log {
    all: Mutex<Vec<Received>>,
    dump: Option<Dump>,
}

impl Default for Log {
    fn default() -> Log {
        Log {
            all: Mutex::default(),
            dump: Dump::from_env(),
        }
    }
}

impl Drop for Log {
    fn drop(&mut self) {
        if let Some(dump) = &self.dump {
            dump.write(&self.all.lock().unwrap_or_else(|e| e.into_inner()));
        }
    }
}

/// The file a test's records are appended to, and this recorder's number in the test.
struct Dump {
    file: PathBuf,
    recorder: u32,
}

impl Dump {
    /// `None` unless `KONDITION_RECORD_REQUESTS` is set. The test's name is its thread's
    /// (libtest names each test's thread after it), read where the recorder is made.
    fn from_env() -> Option<Dump> {
        static RECORDERS: Mutex<Option<HashMap<String, u32>>> = Mutex::new(None);
        let folder = PathBuf::from(std::env::var_os("KONDITION_RECORD_REQUESTS")?);
        let thread = std::thread::current();
        let test = thread.name().unwrap_or("unnamed").replace("::", ".");
        let mut recorders = RECORDERS.lock().unwrap_or_else(|e| e.into_inner());
        let recorder = recorders
            .get_or_insert_with(HashMap::new)
            .entry(test.clone())
            .or_default();
        *recorder += 1;
        Some(Dump {
            file: folder.join(format!("{test}.txt")),
            recorder: *recorder,
        })
    }

    /// Appends `requests`, one normalised line each. A failure to write panics (the dump
    /// was asked for), unless the thread is already panicking.
    fn write(&self, requests: &[Received]) {
        let lines: String = requests
            .iter()
            .map(|r| format!("c{} {}\n", self.recorder, normalised(r)))
            .collect();
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.file)
            .and_then(|mut file| file.write_all(lines.as_bytes()));
        if let Err(e) = written
            && !std::thread::panicking()
        {
            panic!("KONDITION_RECORD_REQUESTS: {}: {e}", self.file.display());
        }
    }
}

/// `request` as one line: method, path, sorted query, answer code, with what varies from
/// run to run replaced (see the module's header).
fn normalised(request: &Received) -> String {
    let path: Vec<String> = request
        .path
        .split('/')
        .scan("", |previous, segment| {
            let after = std::mem::replace(previous, segment);
            Some(match after {
                "namespaces" => without_counter(segment),
                "events" => without_hex_suffix(segment),
                _ => segment.to_owned(),
            })
        })
        .collect();
    let mut query: Vec<String> = request
        .query
        .iter()
        .map(|(k, v)| {
            let v = if k == "resourceVersion" && v != "0" && !v.is_empty() {
                "RV"
            } else if is_uid(v) {
                "UID"
            } else {
                v
            };
            format!("{k}={v}")
        })
        .collect();
    query.sort();
    let status = request
        .status
        .map_or_else(|| "-".to_owned(), |code| code.to_string());
    // The preconditions a body's metadata carries (an apply's): not the values, which vary.
    let metadata = &request.body["metadata"];
    let preconditions: Vec<&str> = [("resourceVersion", "rv"), ("uid", "uid")]
        .into_iter()
        .filter(|(field, _)| metadata.get(field).is_some())
        .map(|(_, short)| short)
        .collect();
    let preconditions = if preconditions.is_empty() {
        "-".to_owned()
    } else {
        preconditions.join(",")
    };
    format!(
        "{} {} ?{} {status} pre={preconditions}",
        request.method,
        path.join("/"),
        query.join("&")
    )
}

/// `name` without a trailing `-<digits>` (the counter of `cluster::create_namespace`).
fn without_counter(name: &str) -> String {
    match name.rsplit_once('-') {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{base}-N")
        }
        _ => name.to_owned(),
    }
}

/// `name` without a trailing `.<hex>` (kube's Recorder names an Event `<object>.<hex time>`).
fn without_hex_suffix(name: &str) -> String {
    match name.rsplit_once('.') {
        Some((base, hex)) if hex.len() >= 8 && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
            format!("{base}.HEX")
        }
        _ => name.to_owned(),
    }
}

/// Whether `text` is a UUID (8-4-4-4-12 hex digits), as an object's uid is.
fn is_uid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
        && groups
            .iter()
            .all(|g| g.bytes().all(|b| b.is_ascii_hexdigit()))
}

impl Requests {
    /// Every request so far.
    pub fn all(&self) -> Vec<Received> {
        self.0.all.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The requests so far that were writes (not GET: no read, list or watch).
    pub fn writes(&self) -> Vec<Received> {
        self.all().into_iter().filter(Received::is_write).collect()
    }

    /// How many requests so far.
    pub fn len(&self) -> usize {
        self.0.all.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether nothing was sent yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets what was recorded so far.
    pub fn clear(&self) {
        let mut all = self.0.all.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(dump) = &self.0.dump {
            dump.write(&all);
        }
        all.clear();
    }

    fn push(&self, received: Received) -> usize {
        let mut all = self.0.all.lock().unwrap_or_else(|e| e.into_inner());
        all.push(received);
        all.len() - 1
    }

    fn answered(&self, index: usize, status: u16) {
        if let Some(r) = self
            .0
            .all
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut(index)
        {
            r.status = Some(status);
        }
    }
}

/// A client of `config` whose every request is recorded, each attempt of kube's own retry
/// included: the record sits under the retry layer that kube's client adds when
/// `config.default_retry` is set (it retries 429, 503 and 504 up to 15 times, waiting as long
/// as a `Retry-After` header says when that is longer than its own backoff), where
/// [`recorded`] of a client built from `config` would record one request for all its attempts.
pub fn recorded_config(config: Config) -> (Client, Requests) {
    let retry = config.default_retry;
    let namespace = config.default_namespace.clone();
    let base = kube::client::ClientBuilder::try_from(without_retry(config))
        .expect("a client for the test API server")
        .build();
    let requests = Requests::default();
    let record = Record {
        client: base,
        requests: requests.clone(),
    };
    let client = if retry {
        let retrying = tower::ServiceBuilder::new()
            .layer(tower::retry::RetryLayer::new(RetryPolicy::server_retry()))
            .service(record);
        Client::new(retrying, namespace)
    } else {
        Client::new(record, namespace)
    };
    (client, requests)
}

/// `config` with kube's retry layer off: a 429, 503 or 504 reaches the caller as the server
/// sent it.
pub fn without_retry(mut config: Config) -> Config {
    config.default_retry = false;
    config
}

/// `client` with its requests recorded: a client that records each request into the
/// returned [`Requests`] and sends it through `client`, whose answer it passes back unchanged.
pub fn recorded(client: Client) -> (Client, Requests) {
    let requests = Requests::default();
    let namespace = client.default_namespace().to_owned();
    let service = Record {
        client,
        requests: requests.clone(),
    };
    (Client::new(service, namespace), requests)
}

/// The service [`recorded`] makes.
#[derive(Clone)]
struct Record {
    client: Client,
    requests: Requests,
}

impl Service<http::Request<Body>> for Record {
    type Response = http::Response<Body>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        // The client under it waits for its own readiness in `send`.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let Record { client, requests } = self.clone();
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let bytes = body.collect().await?.to_bytes();
            let index = requests.push(Received {
                method: parts.method.to_string(),
                path: parts.uri.path().to_owned(),
                query: parts
                    .uri
                    .query()
                    .unwrap_or_default()
                    .split('&')
                    .filter(|pair| !pair.is_empty())
                    .map(|pair| {
                        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                        (percent_decode(k), percent_decode(v))
                    })
                    .collect(),
                content_type: parts
                    .headers
                    .get(http::header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned(),
                body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                status: None,
            });
            let request = http::Request::from_parts(parts, Body::from(bytes.to_vec()));
            let response = client.send(request).await?;
            requests.answered(index, response.status().as_u16());
            Ok(response)
        })
    }
}

/// `%XX` escapes and `+` decoded, as a query string writes them.
pub(crate) fn percent_decode(text: &str) -> String {
    let hex = |b: u8| char::from(b).to_digit(16);
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = match bytes.get(i..i + 3) {
            Some([b'%', high, low]) => hex(*high).zip(hex(*low)),
            _ => None,
        };
        match (escaped, bytes[i]) {
            (Some((high, low)), _) => {
                // Two hex digits are at most 0xff.
                out.push(u8::try_from(high * 16 + low).unwrap_or_default());
                i += 3;
            }
            (None, b'+') => {
                out.push(b' ');
                i += 1;
            }
            (None, byte) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::percent_decode;

    #[test]
    fn query_text_is_decoded() {
        assert_eq!(percent_decode("example.com%2Fwidget"), "example.com/widget");
        assert_eq!(percent_decode("a+b"), "a b");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
        assert_eq!(percent_decode("%C3%A9t%C3%A9"), "été");
    }

    #[test]
    fn a_dumped_line_is_normalised() {
        let request = super::Received {
            method: "PATCH".to_owned(),
            path: "/api/v1/namespaces/my-test-12/events/widget.187a3b2c4d5e6f70".to_owned(),
            query: vec![
                ("resourceVersion".to_owned(), "4711".to_owned()),
                ("fieldManager".to_owned(), "kondition".to_owned()),
                (
                    "uid".to_owned(),
                    "0f8fad5b-d9cb-469f-a165-70867728950e".to_owned(),
                ),
            ],
            content_type: String::new(),
            body: serde_json::json!({"metadata": {"name": "widget", "uid": "0f8f"}}),
            status: None,
        };
        assert_eq!(
            super::normalised(&request),
            "PATCH /api/v1/namespaces/my-test-N/events/widget.HEX \
             ?fieldManager=kondition&resourceVersion=RV&uid=UID - pre=uid"
        );
    }
}
