//! Shards (`kondition::shards`) on the real API server: kube-apiserver's own sharded list and
//! watch (`shardSelector`, its `ShardedListAndWatch` gate on in [`sharded_cluster`]) and the
//! same selection made by the client where the server ignores the parameter (the gate off,
//! [`audited_cluster`]).
//!
//! The replicas are the Widget operator of `runtime/examples/widget_operator.rs` (which
//! `cargo test --workspace` builds), run as separate processes so that one can be killed and another
//! paused (SIGSTOP) and resumed. Which replica wrote what is read from the API server's audit
//! log, by user agent: every replica writes under the one field manager of the kind. The
//! replicas speak as a ServiceAccount bound to what `kondition::permissions` gives for the kind
//! and what their Leases need.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, SystemTime};

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::rbac::v1::PolicyRule;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kondition::shards::{Selection, Shard, selection, shard_api, shard_watcher};
use kondition_tests::cluster::{Cluster, TestEnv, audited_cluster, sharded_cluster};
use kube::api::{ApiResource, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::watcher;
use kube::{Api, ResourceExt};

/// The replicas' program: the example as `cargo test --workspace` (the README's test command)
/// builds it, or `KONDITION_WIDGET_OPERATOR`.
fn operator() -> PathBuf {
    let path = std::env::var_os("KONDITION_WIDGET_OPERATOR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/debug/examples/widget_operator")
        });
    let source =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/examples/widget_operator.rs");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(&path), modified(&source)) {
        (Some(built), Some(written)) if built >= written => path,
        _ => panic!(
            "no widget operator built from runtime/examples/widget_operator.rs at {}: run \
             `cargo test --workspace` (the README's test command builds the examples), or \
             `cargo build -p kondition --features controller,shards --example widget_operator`",
            path.display()
        ),
    }
}

/// How long a renewal holds a replica's shard Lease, in seconds (the replicas' `--lease-seconds`).
const LEASE_SECONDS: u64 = 8;

/// Every object lands in the shard whose range holds the server's hash of its uid: the API
/// server lists exactly the objects `Shard::of_uid` places in each shard, for 1 to 4 shards,
/// and says so in the list's `shardInfo`; the shard's watch delivers the same objects.
#[tokio::test]
async fn the_server_selects_each_object_into_the_shard_its_uid_hashes_to() {
    let env = TestEnv::on(sharded_cluster(), []).await;
    let config_maps = create_config_maps(&env, 40).await;
    for count in 1..=4 {
        for shard in Shard::all(count) {
            let expected = in_shard(&config_maps, shard);
            let api = shard_api(&env.admin, shard, |c| {
                Api::<ConfigMap>::namespaced(c, &env.namespace)
            });
            let listed: BTreeSet<String> = api
                .list(&ListParams::default())
                .await
                .expect("a list")
                .items
                .iter()
                .map(ResourceExt::name_any)
                .filter(|name| name.starts_with("sharded-"))
                .collect();
            assert_eq!(listed, expected, "{shard}: the server's selection");
            assert_eq!(
                selection(&api, shard).await.expect("a selection"),
                Selection::Server
            );
            assert_eq!(watched(&env, shard).await, expected, "{shard}: its watch");
        }
    }
}

/// Where the server ignores the selector (no gate), it lists every object, says nothing of a
/// shard, and the shard's watch still delivers the shard's objects only: the client selects.
#[tokio::test]
async fn without_the_gate_the_client_selects() {
    let env = TestEnv::on(audited_cluster(), []).await;
    let config_maps = create_config_maps(&env, 20).await;
    let shard = Shard::new(1, 3).expect("a shard");
    let api = shard_api(&env.admin, shard, |c| {
        Api::<ConfigMap>::namespaced(c, &env.namespace)
    });
    let listed = api
        .list(&ListParams::default())
        .await
        .expect("a list")
        .items
        .iter()
        .filter(|c| c.name_any().starts_with("sharded-"))
        .count();
    assert_eq!(listed, 20, "the server ignored the selector");
    assert_eq!(
        selection(&api, shard).await.expect("a selection"),
        Selection::Client
    );
    assert_eq!(
        watched(&env, shard).await,
        in_shard(&config_maps, shard),
        "the client's selection"
    );
}

/// Three replicas share the Widgets (150; `KONDITION_SHARD_WIDGETS` for more), each holding
/// one shard; each status is written once per generation, by the replica holding its shard.
/// Then, half-way through a change of every spec, one replica is killed and another paused
/// past its lease: the third takes both shards over and writes the rest of that generation
/// and the whole next one; the paused one, resumed, starts no write (its shard's fence shut
/// on the clock; one it had under way is refused by the precondition) and gives its shard
/// up, and no object is ever written twice for one generation.
#[tokio::test]
async fn replicas_write_each_status_once_by_the_holder_of_its_shard() {
    replicas_share_the_widgets(sharded_cluster(), "the API server").await;
}

/// [`replicas_write_each_status_once_by_the_holder_of_its_shard`] where the API server ignores
/// the shard selector: every replica lists and watches every Widget and keeps its shards'.
#[tokio::test]
async fn replicas_write_each_status_once_by_the_holder_of_its_shard_without_the_gate() {
    replicas_share_the_widgets(audited_cluster(), "this client").await;
}

/// A count from the environment variable `name`, or `default`.
fn from_env(name: &str, default: u64) -> u64 {
    std::env::var(name).map_or(default, |v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a count"))
    })
}

async fn replicas_share_the_widgets(cluster: &'static Cluster, selected_by: &str) {
    // bench/shards_acceptance.sh runs this with 30,000 Widgets, longer leases and a longer
    // steady phase.
    let count = from_env("KONDITION_SHARD_WIDGETS", 150);
    let lease_seconds = from_env("KONDITION_SHARD_LEASE_SECONDS", LEASE_SECONDS);
    let env = TestEnv::on(cluster, [widget_crd()]).await;
    let widgets = widget_api(&env);
    // The replicas speak as a ServiceAccount allowed what `kondition::permissions` gives for
    // Widget and what their Leases need, nothing more.
    let mut rules = env.rules();
    rules.push(PolicyRule {
        api_groups: Some(vec!["coordination.k8s.io".into()]),
        resources: Some(vec!["leases".into()]),
        verbs: ["create", "get", "list", "watch", "patch", "update"]
            .map(String::from)
            .to_vec(),
        ..PolicyRule::default()
    });
    let identity = env.identity("widget-operator", rules).await;
    let kubeconfig = std::env::temp_dir().join(format!("{}.kubeconfig", env.namespace));
    identity.write_kubeconfig(&kubeconfig);
    // The Widgets first: a replica tells who selects its shard's objects by listing some.
    futures::stream::iter(0..count)
        .for_each_concurrent(16, |n| {
            let widgets = widgets.clone();
            async move {
                let widget = serde_json::from_value(serde_json::json!({
                    "apiVersion": "example.com/v1", "kind": "Widget",
                    "metadata": {"name": format!("w{n:05}")}, "spec": {"size": 1}
                }))
                .expect("a widget");
                widgets
                    .create(&PostParams::default(), &widget)
                    .await
                    .expect("created");
            }
        })
        .await;
    let started = std::time::Instant::now();
    let mut replicas: Vec<Replica> = (0..3)
        .map(|i| Replica::start(&kubeconfig, &env, i, lease_seconds))
        .collect();
    for (i, replica) in replicas.iter_mut().enumerate() {
        replica.wait_for_line(&format!("shard {i} of 3: held, selected by {selected_by}"));
    }
    let leases: Api<Lease> = Api::namespaced(env.admin.clone(), &env.namespace);
    for i in 0..3 {
        assert_eq!(
            holder(&leases, i).await.as_deref(),
            Some(format!("r{i}").as_str())
        );
    }
    let uids = all_observed(&widgets, 1).await;
    eprintln!(
        "{count} widgets, selected by {selected_by}: generation 1 observed by all {:.1} s after \
         the replicas started",
        started.elapsed().as_secs_f64()
    );

    // Half of the specs change; then r0 is killed and r1 paused while they may still be
    // writing them, and the other half change: r2 takes both shards over once their Leases
    // expire, and writes every status the others left.
    let names: Vec<String> = uids.keys().cloned().collect();
    let (first_half, second_half) = names.split_at(names.len() / 2);
    let changing = std::time::Instant::now();
    set_size(&widgets, first_half, 2).await;
    let killed = SystemTime::now();
    replicas[0].signal("KILL");
    let paused = SystemTime::now();
    replicas[1].signal("STOP");
    set_size(&widgets, second_half, 2).await;
    all_observed(&widgets, 2).await;
    eprintln!(
        "generation 2 observed by all {:.1} s after the change began",
        changing.elapsed().as_secs_f64()
    );
    for (i, since, what) in [(0, killed, "killed"), (1, paused, "paused")] {
        let lease = leases
            .get(&format!("widget-operator-{i}-of-3"))
            .await
            .expect("the shard's Lease");
        let acquired: Option<SystemTime> = lease
            .spec
            .as_ref()
            .and_then(|spec| spec.acquire_time.as_ref())
            .map(|time| time.0.into());
        let after = acquired
            .and_then(|acquired| acquired.duration_since(since).ok())
            .map_or_else(|| "?".to_owned(), |d| format!("{:.1}", d.as_secs_f64()));
        eprintln!(
            "shard {i} taken over {after} s after its replica was {what} (lease {lease_seconds} s)"
        );
    }
    for i in 0..3 {
        assert_eq!(holder(&leases, i).await.as_deref(), Some("r2"), "shard {i}");
    }
    // r1 was paused past its Lease (r2 holds its shard). Resumed, its fence is shut before its
    // lease loop runs: it writes nothing, and gives the shard up.
    let resumed = SystemTime::now();
    replicas[1].signal("CONT");
    replicas[1].wait_for_line_starting("shard 1 of 3: given up");
    set_size(&widgets, &names, 3).await;
    all_observed(&widgets, 3).await;
    // A steady phase: no write may follow (the writes below are counted after it).
    let steady = from_env("KONDITION_SHARD_STEADY_SECONDS", 3);
    tokio::time::sleep(Duration::from_secs(steady)).await;

    let mut writes: BTreeMap<String, Vec<Write>> = BTreeMap::new();
    for event in cluster.audit_events() {
        let Some(object) = &event.object_ref else {
            continue;
        };
        if event.verb != "patch"
            || object.resource != "widgets"
            || object.subresource != "status"
            || object.namespace != env.namespace
        {
            continue;
        }
        let received: SystemTime = event.request_received_timestamp.0.into();
        let answered = event.response_status.as_ref().map_or(0, |s| s.code);
        // A write r1 had under way when it was paused (its fence asked before the pause)
        // goes out when it resumes: by then r2 has written every Widget's generation 2, so
        // the status apply's resourceVersion precondition refuses it. Nothing of r1 lands.
        assert!(
            event.user_agent != "widget-operator/r1" || received < resumed || answered == 409,
            "{}: r1's status write after it resumed answered {answered}, not 409",
            object.name
        );
        // A write answered 5xx may have landed all the same: the answer of a request whose
        // replica was killed while it was in flight is 504, whether or not it was applied.
        if (200..300).contains(&answered) || answered >= 500 {
            writes.entry(object.name.clone()).or_default().push(Write {
                by: event.user_agent.clone(),
                received,
                surely: answered < 500,
            });
        }
    }
    assert_eq!(writes.len(), uids.len(), "every widget's status written");
    for (name, uid) in &uids {
        let shard = Shard::of_uid(uid, 3).expect("a shard").index();
        let writes = writes.get_mut(name).expect("written");
        writes.sort_by_key(|w| w.received);
        assert!(
            one_per_generation(writes, &format!("widget-operator/r{shard}")),
            "{name} (shard {shard}): not one write per generation, by its shard's holder \
             then by r2: {writes:?}"
        );
    }
}

/// A status write as the audit log recorded it.
#[derive(Debug)]
struct Write {
    /// The replica's user agent.
    by: String,
    received: SystemTime,
    /// Answered 2xx; otherwise 5xx, and it may or may not have landed.
    surely: bool,
}

/// Whether `writes` (in the order the server received them) are one per generation of the
/// test's three: by `holder` (its shard's replica), then by `holder` or by r2 (which took
/// the shards over half-way through the second), then by r2; for some choice of which of
/// the writes answered 5xx landed.
fn one_per_generation(writes: &[Write], holder: &str) -> bool {
    let r2 = "widget-operator/r2";
    let uncertain: Vec<usize> = (0..writes.len()).filter(|&i| !writes[i].surely).collect();
    assert!(uncertain.len() < 8, "{} uncertain writes", uncertain.len());
    (0..1u32 << uncertain.len()).any(|landed| {
        let kept: Vec<&str> = (0..writes.len())
            .filter(|i| match uncertain.iter().position(|u| u == i) {
                Some(bit) => landed & (1 << bit) != 0,
                None => true,
            })
            .map(|i| writes[i].by.as_str())
            .collect();
        matches!(kept.as_slice(), [first, second, third]
            if *first == holder && (*second == holder || *second == r2) && *third == r2)
    })
}

/// A replica process of the Widget operator, killed when dropped.
struct Replica {
    child: Child,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Replica {
    /// Replica `r<i>`, number `i` of 3, speaking as `kubeconfig` says, with its Leases in the
    /// test's namespace, held `lease_seconds` per renewal.
    fn start(kubeconfig: &Path, env: &TestEnv, i: u32, lease_seconds: u64) -> Replica {
        let mut child = Command::new(operator())
            .args(["--shards", "3", "--replicas", "3", "--concurrency", "8"])
            .args(["--identity", &format!("r{i}"), "--ordinal", &i.to_string()])
            .args(["--lease-namespace", &env.namespace])
            .args(["--lease-seconds", &lease_seconds.to_string()])
            .arg("--until-stdin-closes")
            .env("KUBECONFIG", kubeconfig)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the widget operator runs");
        let stdout = child.stdout.take().expect("its stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        Replica {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Waits until the replica printed `line` (at most 10 minutes: a bound on a hang, not a
    /// deadline of the behaviour).
    fn wait_for_line(&mut self, line: &str) {
        self.wait_for(line, |seen| seen == line);
    }

    /// Waits until the replica printed a line starting with `start`.
    fn wait_for_line_starting(&mut self, start: &str) {
        self.wait_for(start, |seen| seen.starts_with(start));
    }

    fn wait_for(&mut self, what: &str, found: impl Fn(&str) -> bool) {
        while !self.seen.iter().any(|seen| found(seen)) {
            match self.lines.recv_timeout(Duration::from_secs(600)) {
                Ok(next) => self.seen.push(next),
                Err(error) => panic!("no `{what}` ({error}); printed: {:#?}", self.seen),
            }
        }
    }

    /// Sends the replica the signal named `name` (`KILL`, `STOP`, `CONT`).
    fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{name}");
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The Widget CRD, as the operator prints it.
fn widget_crd() -> CustomResourceDefinition {
    let output = Command::new(operator())
        .arg("--crd")
        .output()
        .expect("the widget operator runs");
    serde_json::from_slice(&output.stdout).expect("the Widget CRD")
}

fn widget_api(env: &TestEnv) -> Api<DynamicObject> {
    let resource = ApiResource {
        group: "example.com".into(),
        version: "v1".into(),
        api_version: "example.com/v1".into(),
        kind: "Widget".into(),
        plural: "widgets".into(),
    };
    Api::namespaced_with(env.admin.clone(), &env.namespace, &resource)
}

/// Who holds shard `i` of 3's Lease.
async fn holder(leases: &Api<Lease>, i: u32) -> Option<String> {
    leases
        .get(&format!("widget-operator-{i}-of-3"))
        .await
        .expect("the shard's Lease")
        .spec?
        .holder_identity
}

/// Sets the size of the Widgets named.
async fn set_size(widgets: &Api<DynamicObject>, names: &[String], size: i64) {
    futures::stream::iter(names)
        .for_each_concurrent(16, |name| async move {
            widgets
                .patch(
                    name,
                    &PatchParams::default(),
                    &Patch::Merge(serde_json::json!({"spec": {"size": size}})),
                )
                .await
                .expect("patched");
        })
        .await;
}

/// Waits until every Widget's status observed `generation` with Ready True, and returns their
/// uids by name.
async fn all_observed(widgets: &Api<DynamicObject>, generation: i64) -> BTreeMap<String, String> {
    let done = async {
        loop {
            let list = widgets.list(&ListParams::default()).await.expect("a list");
            let observed = list.items.iter().all(|w| {
                w.data["status"]["observedGeneration"] == generation
                    && w.data["status"]["conditions"].as_array().is_some_and(|c| {
                        c.iter()
                            .any(|c| c["type"] == "Ready" && c["status"] == "True")
                    })
            });
            if observed {
                return list
                    .items
                    .iter()
                    .map(|w| (w.name_any(), w.uid().unwrap_or_default()))
                    .collect();
            }
            // Listing thousands of Widgets is work for the server the replicas share: ask
            // less often the more there are.
            let pause = Duration::from_millis(500)
                .max(Duration::from_micros(200) * list.items.len() as u32);
            tokio::time::sleep(pause).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(1800), done)
        .await
        .unwrap_or_else(|_| panic!("generation {generation} never observed by every widget"))
}

/// Creates `count` ConfigMaps `sharded-NN` and returns their uids by name.
async fn create_config_maps(env: &TestEnv, count: usize) -> BTreeMap<String, String> {
    let api: Api<ConfigMap> = Api::namespaced(env.admin.clone(), &env.namespace);
    let mut uids = BTreeMap::new();
    for n in 0..count {
        let mut config_map = ConfigMap::default();
        config_map.metadata.name = Some(format!("sharded-{n:02}"));
        let created = api
            .create(&PostParams::default(), &config_map)
            .await
            .expect("created");
        uids.insert(created.name_any(), created.uid().expect("a uid"));
    }
    uids
}

/// The names of the objects of `uids` that `shard` holds by `Shard::of_uid`.
fn in_shard(uids: &BTreeMap<String, String>, shard: Shard) -> BTreeSet<String> {
    uids.iter()
        .filter(|(_, uid)| Shard::of_uid(uid, shard.count()) == Some(shard))
        .map(|(name, _)| name.clone())
        .collect()
}

/// The ConfigMaps `sharded-*` the shard's watcher delivers in its first list.
async fn watched(env: &TestEnv, shard: Shard) -> BTreeSet<String> {
    let namespace = env.namespace.clone();
    let mut events = shard_watcher(
        &env.admin,
        shard,
        move |c| Api::<ConfigMap>::namespaced(c, &namespace),
        watcher::Config::default(),
    );
    let mut names = BTreeSet::new();
    while let Some(event) = events.try_next().await.expect("a watch event") {
        match event {
            watcher::Event::InitApply(config_map) => {
                let name = config_map.name_any();
                if name.starts_with("sharded-") {
                    names.insert(name);
                }
            }
            watcher::Event::InitDone => return names,
            _ => {}
        }
    }
    let _ = events.next().await;
    names
}
