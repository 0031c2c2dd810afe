//! Workspace-level integration tests: they live in `tests/tests/` and check that kondition's
//! crates work together with kube-rs as an operator uses them. The stand-in API server they
//! (and the benchmarks) share is here.

/// The README's Rust examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;

pub mod fake_cluster;
pub mod kinds;
pub mod libraries;

pub mod api_server {
    //! An HTTP stand-in for the API server behind a real `kube::Client`: it records every
    //! request and answers with canned responses, by default 200 with the object.

    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    use bytes::Bytes;
    use http_body_util::{BodyExt, Full};
    use kube::Client;
    use serde::Serialize;
    use serde_json::Value;

    /// One request the stand-in received.
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
    }

    /// One canned answer.
    enum Reply {
        /// This status code and JSON body.
        Http(u16, Value),
        /// No answer: the connection is reset (a transport error for the client).
        Reset,
    }

    /// Answers requests in order with canned responses (200 with the object by default) and
    /// records them.
    #[derive(Clone, Default)]
    pub struct ApiServer {
        received: Arc<Mutex<Vec<Received>>>,
        responses: Arc<Mutex<VecDeque<Reply>>>,
        object: Arc<Mutex<Value>>,
    }

    impl ApiServer {
        /// A stand-in whose default answer is `object`.
        pub fn new(object: &impl Serialize) -> Self {
            let server = Self::default();
            *server.object.lock().expect("lock") =
                serde_json::to_value(object).expect("object JSON");
            server
        }

        /// The next response is this status code and body.
        pub fn respond(&self, code: u16, body: Value) {
            self.responses
                .lock()
                .expect("lock")
                .push_back(Reply::Http(code, body));
        }

        /// The next request gets no response: its connection is reset.
        pub fn reset(&self) {
            self.responses.lock().expect("lock").push_back(Reply::Reset);
        }

        /// Every request so far.
        pub fn received(&self) -> Vec<Received> {
            self.received.lock().expect("lock").clone()
        }

        /// A kube client whose requests this stand-in answers.
        pub fn client(&self) -> Client {
            let server = self.clone();
            let service = tower::service_fn(move |request: http::Request<kube::client::Body>| {
                let server = server.clone();
                async move {
                    let (parts, body) = request.into_parts();
                    let bytes = body
                        .collect()
                        .await
                        .map(|b| b.to_bytes())
                        .unwrap_or_default();
                    let query = parts
                        .uri
                        .query()
                        .unwrap_or_default()
                        .split('&')
                        .filter(|pair| !pair.is_empty())
                        .map(|pair| {
                            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
                            (k.to_owned(), v.replace("%2F", "/"))
                        })
                        .collect();
                    server.received.lock().expect("lock").push(Received {
                        method: parts.method.to_string(),
                        path: parts.uri.path().to_owned(),
                        query,
                        content_type: parts
                            .headers
                            .get("content-type")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or_default()
                            .to_owned(),
                        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
                    });
                    let reply = server.responses.lock().expect("lock").pop_front();
                    let (code, body) = match reply {
                        Some(Reply::Http(code, body)) => (code, body),
                        Some(Reply::Reset) => {
                            return Err(std::io::Error::from(std::io::ErrorKind::ConnectionReset));
                        }
                        None => (200, server.object.lock().expect("lock").clone()),
                    };
                    let response = http::Response::builder()
                        .status(code)
                        .header("content-type", "application/json")
                        .body(Full::new(Bytes::from(body.to_string())))
                        .expect("response");
                    Ok(response)
                }
            });
            Client::new(service, "team-a")
        }
    }
}
