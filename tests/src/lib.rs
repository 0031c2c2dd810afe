//! Workspace-level integration tests: they live in `tests/tests/` and check that kondition's
//! crates work together with kube-rs as an operator uses them. The stand-in API server they
//! (and the benchmarks) share is here.

/// The README's Rust examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;

pub mod cluster;
pub mod fake_cluster;
pub mod faults;
pub mod kinds;
pub mod libraries;
pub mod recording;

pub mod api_server {
    //! An HTTP stand-in for the API server behind a real `kube::Client`: it records every
    //! request and answers with the canned responses a test queued, and otherwise as the API
    //! server would: status applies and events through a [`FakeCluster`] holding the object,
    //! merged and validated by the API server's own libraries. Requests that cluster does not
    //! model (a JSON patch of the object's finalizers) get the object back.

    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    use http_body_util::BodyExt;
    use kube::{Client, CustomResourceExt};
    use serde::Serialize;
    use serde_json::Value;

    use crate::fake_cluster::{FakeCluster, json_response};

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

    /// Records requests and answers them in order with canned responses, then as the API
    /// server would.
    #[derive(Clone)]
    pub struct ApiServer {
        received: Arc<Mutex<Vec<Received>>>,
        responses: Arc<Mutex<VecDeque<Reply>>>,
        object: Arc<Mutex<Value>>,
        /// Where requests without a canned answer go; `None`: 200 with the object.
        cluster: Option<FakeCluster>,
    }

    impl ApiServer {
        /// A stand-in holding `object`, answering through the API server's libraries with
        /// `K`'s CRD.
        pub fn new<K: CustomResourceExt + Serialize + kube::Resource>(object: &K) -> Self {
            let namespace = object
                .meta()
                .namespace
                .clone()
                .unwrap_or_else(|| "default".into());
            let cluster = FakeCluster::new(&K::crd(), &namespace, 1);
            let mut server = Self::echo(object);
            cluster.insert(server.object.lock().expect("lock").clone());
            server.cluster = Some(cluster);
            server
        }

        /// A stand-in whose every answer not queued is 200 with `object`, as it was: for
        /// benchmarks that measure the client's side alone.
        pub fn echo(object: &impl Serialize) -> Self {
            Self {
                received: Arc::default(),
                responses: Arc::default(),
                object: Arc::new(Mutex::new(
                    serde_json::to_value(object).expect("object JSON"),
                )),
                cluster: None,
            }
        }

        /// The object as the API server's libraries now store it (`None` without them).
        pub fn stored(&self) -> Option<Value> {
            let cluster = self.cluster.as_ref()?;
            let name = self.object.lock().expect("lock")["metadata"]["name"]
                .as_str()
                .map(str::to_owned)?;
            cluster.objects().remove(&name)
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
                    match (reply, &server.cluster) {
                        (Some(Reply::Http(code, body)), _) => Ok(json_response(code, &body)),
                        (Some(Reply::Reset), _) => {
                            Err(std::io::Error::from(std::io::ErrorKind::ConnectionReset))
                        }
                        (None, Some(cluster))
                            if cluster.serves(parts.method.as_str(), parts.uri.path()) =>
                        {
                            cluster.serve(&parts, &bytes).await
                        }
                        (None, _) => {
                            let object = server.object.lock().expect("lock").clone();
                            Ok(json_response(200, &object))
                        }
                    }
                }
            });
            Client::new(service, "team-a")
        }
    }
}
