//! Watching one shard: the API server's shard selector on the list and watch requests, and
//! the same selection made again on what comes back.
//!
//! kube's `ListParams` and `watcher::Config` carry no shard selector, so the parameter is
//! added below kube's request building, by a client whose every list or watch of the kind's
//! collection goes out with `shardSelector` ([`shard_api`]). A server without the
//! `ShardedListAndWatch` gate ignores the parameter and answers every object; a server with
//! it echoes the selector in the list's `metadata.shardInfo` ([`selection`] asks). Either
//! way [`shard_watcher`] keeps only the shard's objects before they reach a store, so a
//! replica's memory follows its shards in both modes.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use futures::stream::BoxStream;
use futures::{Stream, StreamExt, TryStreamExt};
use http::{Method, Request, Response, Uri};
use kube::client::Body;
use kube::runtime::watcher;
use kube::{Api, Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;

use super::{HashRange, Shard};

/// How a shard's objects are selected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selection {
    /// The API server applies the shard selector (it echoed it in the list's `shardInfo`):
    /// only the shard's objects travel; the client's own filter keeps them all.
    Server,
    /// The API server ignored the selector (no `ShardedListAndWatch` gate): every object
    /// travels and is decoded, and the client keeps the shard's.
    Client,
    /// The kind has no object yet to tell by.
    Unknown,
}

/// The `Api` that `api` makes of a client, whose lists and watches of its collection carry
/// `shard`'s selector; other requests go out unchanged. `api` is `Api::namespaced`,
/// `Api::all` or another constructor of kube's, as the kind's scope allows:
///
/// ```no_run
/// # use kondition::shards::{Shard, shard_api};
/// # use k8s_openapi::api::core::v1::ConfigMap;
/// # fn f(client: kube::Client) {
/// let shard = Shard::new(0, 3).expect("a shard");
/// let config_maps = shard_api(&client, shard, |client| kube::Api::<ConfigMap>::all(client));
/// # }
/// ```
pub fn shard_api<K: Resource>(
    client: &Client,
    shard: Shard,
    api: impl FnOnce(Client) -> Api<K>,
) -> Api<K> {
    let collection = Arc::new(OnceLock::new());
    let selecting = SelectShard {
        client: client.clone(),
        collection: collection.clone(),
        query: format!("shardSelector={}", percent_encoded(&shard.selector())).into(),
    };
    let api = api(Client::new(selecting, client.default_namespace()));
    // Set before the Api is handed out: no request of it goes out before.
    let _ = collection.set(api.resource_url().to_owned());
    api
}

/// `K`'s objects of `shard` as a watch stream: lists and watches through [`shard_api`], and
/// every object outside the shard dropped, whatever the server answered, before the stream
/// hands it on (to a reflector's store, to a Controller). [`ShardStream::tally`] counts what
/// came and what was kept.
pub fn shard_watcher<K, A>(
    client: &Client,
    shard: Shard,
    api: A,
    config: watcher::Config,
) -> ShardStream<K>
where
    A: FnOnce(Client) -> Api<K>,
    K: Resource + Clone + std::fmt::Debug + DeserializeOwned + Send + 'static,
    K::DynamicType: Default,
{
    let tally = WatchTally::default();
    let counts = tally.clone();
    // Boxed: an opaque type would capture `A`, the closure, which the stream does not hold.
    let events = watcher(shard_api(client, shard, api), config)
        .try_filter(move |event| {
            let kept = event_in(event, shard);
            counts.count(event, kept);
            std::future::ready(kept)
        })
        .boxed();
    ShardStream { events, tally }
}

/// A shard's watch stream ([`shard_watcher`]): `watcher`'s events of the shard's objects.
pub struct ShardStream<K> {
    events: BoxStream<'static, Result<watcher::Event<K>, watcher::Error>>,
    tally: WatchTally,
}

impl<K> ShardStream<K> {
    /// The stream's counts, which go on counting as it is polled.
    pub fn tally(&self) -> WatchTally {
        self.tally.clone()
    }
}

impl<K> Stream for ShardStream<K> {
    type Item = Result<watcher::Event<K>, watcher::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.events.poll_next_unpin(cx)
    }
}

/// How many objects a shard's watch received (decoded from the API server's answers: its
/// lists' items and its watch events) and how many it kept (the shard's own). With the server
/// selecting ([`Selection::Server`]) the two are equal; with the client selecting, every
/// replica receives every object's events and keeps its shards' share: the difference is the
/// cost of a server without the `ShardedListAndWatch` gate.
#[derive(Clone, Debug, Default)]
pub struct WatchTally(Arc<Counts>);

#[derive(Debug, Default)]
struct Counts {
    received: AtomicU64,
    kept: AtomicU64,
}

impl WatchTally {
    /// The objects received so far.
    pub fn received(&self) -> u64 {
        self.0.received.load(Ordering::Relaxed)
    }

    /// The objects kept so far: those of the shard.
    pub fn kept(&self) -> u64 {
        self.0.kept.load(Ordering::Relaxed)
    }

    /// Counts `event`, kept or not; the list's boundaries carry no object and count nothing.
    fn count<K>(&self, event: &watcher::Event<K>, kept: bool) {
        if matches!(event, watcher::Event::Init | watcher::Event::InitDone) {
            return;
        }
        self.0.received.fetch_add(1, Ordering::Relaxed);
        if kept {
            self.0.kept.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Whether the server applies shard selectors to `api`'s lists, asked with lists of at most
/// one object:
///
/// 1. with `shard`'s selector: a server that applied it echoes it in `metadata.shardInfo`
///    (kube-apiserver 1.37.2 does so for built-in kinds, not for custom resources, whose lists
///    it filters all the same);
/// 2. without a selector: no object at all leaves nothing to tell by ([`Selection::Unknown`]);
/// 3. with a selector of one hash of the 2^64 (`[0, 1)`), which no object of a server that
///    applies it meets: an object in the answer says the server ignored the selector.
///
/// None of them is an error on the server. Either way the client's own filter
/// ([`shard_watcher`]) keeps only the shard's objects: this says only how much travels.
pub async fn selection<K: Resource + Clone>(
    api: &Api<K>,
    shard: Shard,
) -> Result<Selection, kube::Error> {
    let client = api.clone().into_client();
    let first = async |selector: Option<&str>| -> Result<serde_json::Value, kube::Error> {
        let query = selector
            .map(|s| format!("&shardSelector={}", percent_encoded(s)))
            .unwrap_or_default();
        let request = Request::get(format!("{}?limit=1{query}", api.resource_url()))
            .body(Vec::new())
            .map_err(kube::Error::HttpError)?;
        client.request(request).await
    };
    let holds_any = |list: &serde_json::Value| {
        list["items"]
            .as_array()
            .is_some_and(|items| !items.is_empty())
    };
    let selected = first(Some(&shard.selector())).await?;
    let echoed = selected
        .pointer("/metadata/shardInfo/selector")
        .and_then(serde_json::Value::as_str);
    if echoed == Some(shard.selector().as_str()) {
        return Ok(Selection::Server);
    }
    if !holds_any(&first(None).await?) {
        return Ok(Selection::Unknown);
    }
    let one_hash = HashRange::new(0, 1)
        .expect("[0, 1) is a range")
        .selector("object.metadata.uid");
    Ok(if holds_any(&first(Some(&one_hash)).await?) {
        Selection::Client
    } else {
        Selection::Server
    })
}

/// Whether `object` is one `shard` holds, by its uid. An object without a uid (never one the
/// API server sent) is held by none.
pub fn holds<K: Resource>(shard: Shard, object: &K) -> bool {
    object.uid().is_some_and(|uid| shard.holds(&uid))
}

/// Whether `owned` follows `shard`: its controlling owner of kind `K` is an object `shard`
/// holds. The API server selects by an object's own uid only, so owned objects (a
/// Deployment, a ConfigMap) are sorted to their owner's shard here, by the owner's uid in
/// `ownerReferences`.
pub fn owner_holds<K, O>(shard: Shard, owned: &O) -> bool
where
    K: Resource<DynamicType = ()>,
    O: Resource,
{
    owned.owner_references().iter().any(|owner| {
        owner.controller == Some(true)
            && owner.kind == K::kind(&())
            && owner.api_version == K::api_version(&())
            && shard.holds(&owner.uid)
    })
}

/// Whether a watch event concerns `shard`: the events of its objects and the list's
/// boundaries (`Init`, `InitDone`), which the store needs whatever they hold.
fn event_in<K: Resource>(event: &watcher::Event<K>, shard: Shard) -> bool {
    match event {
        watcher::Event::Apply(object)
        | watcher::Event::InitApply(object)
        | watcher::Event::Delete(object) => holds(shard, object),
        watcher::Event::Init | watcher::Event::InitDone => true,
    }
}

/// `text` as a URL query value: every byte but the unreserved ones percent-encoded.
fn percent_encoded(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(byte).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// A client's requests, with `query` added to every GET of `collection` (a list, or a
/// watch).
#[derive(Clone)]
struct SelectShard {
    client: Client,
    collection: Arc<OnceLock<String>>,
    query: Arc<str>,
}

impl tower_service::Service<Request<Body>> for SelectShard {
    type Response = Response<Body>;
    type Error = kube::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, kube::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), kube::Error>> {
        // The client it sends through queues requests of its own.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: Request<Body>) -> Self::Future {
        let collection = self.collection.get().map(String::as_str);
        if request.method() == Method::GET && Some(request.uri().path()) == collection {
            let uri = with_query(request.uri(), &self.query);
            match uri {
                Ok(uri) => *request.uri_mut() = uri,
                Err(error) => return Box::pin(std::future::ready(Err(error))),
            }
        }
        let client = self.client.clone();
        Box::pin(async move { client.send(request).await })
    }
}

/// `uri` with `query` (`name=value`, encoded) added to its query.
fn with_query(uri: &Uri, query: &str) -> Result<Uri, kube::Error> {
    let path_and_query = match uri.query() {
        Some(existing) if !existing.is_empty() => format!("{}?{existing}&{query}", uri.path()),
        _ => format!("{}?{query}", uri.path()),
    };
    let mut parts = uri.clone().into_parts();
    parts.path_and_query = Some(
        path_and_query
            .parse()
            .map_err(|e: http::uri::InvalidUri| kube::Error::HttpError(e.into()))?,
    );
    Uri::from_parts(parts).map_err(|e| kube::Error::HttpError(e.into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selector_is_percent_encoded() {
        let shard = Shard::new(1, 2).expect("a shard");
        assert_eq!(
            percent_encoded(&shard.selector()),
            "shardRange%28object.metadata.uid%2C%20%270x8000000000000000%27%2C%20%270x10000000000000000%27%29"
        );
    }

    #[test]
    fn the_query_is_added_to_the_one_there() {
        let uri: Uri = "/apis/example.com/v1/widgets?limit=500&watch=true"
            .parse()
            .expect("a uri");
        assert_eq!(
            with_query(&uri, "shardSelector=x")
                .expect("a uri")
                .to_string(),
            "/apis/example.com/v1/widgets?limit=500&watch=true&shardSelector=x"
        );
        let bare: Uri = "/apis/example.com/v1/widgets".parse().expect("a uri");
        assert_eq!(
            with_query(&bare, "shardSelector=x")
                .expect("a uri")
                .to_string(),
            "/apis/example.com/v1/widgets?shardSelector=x"
        );
    }

    #[test]
    fn the_tally_counts_the_objects_received_and_those_of_the_shard() {
        use k8s_openapi::api::core::v1::ConfigMap;
        let shard = Shard::new(0, 2).expect("a shard");
        // A uid of each shard.
        let uid_in = |index| {
            (0..)
                .map(|n| format!("uid-{n}"))
                .find(|uid| Shard::of_uid(uid, 2).map(Shard::index) == Some(index))
                .expect("a uid")
        };
        let object = |uid: String| {
            let mut config_map = ConfigMap::default();
            config_map.metadata.uid = Some(uid);
            config_map
        };
        let (ours, theirs) = (object(uid_in(0)), object(uid_in(1)));
        let tally = WatchTally::default();
        for event in [
            watcher::Event::Init,
            watcher::Event::InitApply(ours.clone()),
            watcher::Event::InitApply(theirs.clone()),
            watcher::Event::InitDone,
            watcher::Event::Apply(ours),
            watcher::Event::Delete(theirs),
        ] {
            tally.count(&event, event_in(&event, shard));
        }
        assert_eq!((tally.received(), tally.kept()), (4, 2));
    }
}
