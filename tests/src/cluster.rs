//! The real Kubernetes API server for the tests: kube-apiserver with etcd embedded, run by
//! the launcher in `tests/launcher/` (a Go program built from `k8s.io/kubernetes`), one per
//! test binary, started on first use and stopped when the binary exits (the launcher stops
//! when its stdin closes, which the kernel does for a process however it ends).
//!
//! [`TestEnv::new`] gives a test a namespace of its own, named after the test, with its CRDs
//! installed and Established, an administrator's client for the test's own reads and writes,
//! and a `kube::Client` for the controller under test whose requests are recorded
//! ([`Requests`]): tests assert the exact requests a controller sends and what the real
//! server then holds. The controller's client speaks as a ServiceAccount allowed exactly what
//! `kondition::permissions` says the status chokepoint needs for those kinds
//! ([`crate::identity`]), so a rule missing from kondition's list fails the suite;
//! [`TestEnv::identity`] makes identities with other rules, [`TestEnv::throttled`] one that
//! API Priority and Fairness throttles ([`crate::throttle`]).
//!
//! The launcher is built by the README's test command (`bash tests/run.sh`) into
//! `target/launcher/kondition-apiserver`; `KONDITION_APISERVER` names another binary. A
//! missing launcher fails the tests and says how to build it: nothing falls back to a
//! stand-in. `KONDITION_TEST_KUBECONFIG` sends the tests to a cluster of one's own instead
//! (a name of the project's own, so that a `KUBECONFIG` set for daily work never does).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};

use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::PolicyRule;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kondition::permissions::KindAccess;
use kube::api::{Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::wait::{await_condition, conditions};
use kube::{Api, Client, Config, ResourceExt};

use crate::identity::{Identity, service_account};
use crate::recording::{Requests, recorded};
use crate::throttle::Throttled;

/// Where the README's test command puts the launcher.
const DEFAULT_LAUNCHER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../target/launcher/kondition-apiserver"
);

/// The field manager the test harness installs CRDs and namespaces as.
pub const HARNESS: &str = "kondition-tests";

/// The API server of this test binary: its kubeconfig, and the launcher running it (none
/// for a cluster named by `KONDITION_TEST_KUBECONFIG`).
pub struct Cluster {
    kubeconfig: Kubeconfig,
    kubeconfig_path: PathBuf,
    launcher: Option<Launcher>,
    /// Where the API server writes its audit events, when it was asked to.
    audit_log: Option<PathBuf>,
}

/// A running launcher and the pipes to send it commands.
struct Launcher {
    commands: Mutex<(ChildStdin, BufReader<ChildStdout>)>,
    // Kept so the child is not reaped early; it is never waited for: it exits when this
    // process does and its stdin closes.
    _child: Child,
}

/// The cluster of this test binary, started on first use. Panics with the reason (and how to
/// build the launcher) when it cannot start; every later call panics with the same words.
pub fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
    match CLUSTER.get_or_init(|| Cluster::start(Server::Plain)) {
        Ok(cluster) => cluster,
        Err(reason) => panic!("the test API server did not start: {reason}"),
    }
}

/// A second API server of this test binary, started on first use, with kube-apiserver's
/// `ShardedListAndWatch` feature gate on (lists and watches honour `shardSelector`) and an
/// audit log of every changing request ([`Cluster::audit_events`]).
pub fn sharded_cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
    match CLUSTER.get_or_init(|| Cluster::start(Server::Sharded)) {
        Ok(cluster) => cluster,
        Err(reason) => panic!("the sharded test API server did not start: {reason}"),
    }
}

/// A third API server of this test binary, started on first use: the gates of [`cluster`]'s
/// (no sharded lists and watches: the server ignores `shardSelector`) and an audit log of
/// every changing request ([`Cluster::audit_events`]).
pub fn audited_cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
    match CLUSTER.get_or_init(|| Cluster::start(Server::Audited)) {
        Ok(cluster) => cluster,
        Err(reason) => panic!("the audited test API server did not start: {reason}"),
    }
}

/// Which API server a test binary starts.
#[derive(Clone, Copy, PartialEq)]
enum Server {
    /// The launcher's flags only.
    Plain,
    /// `ShardedListAndWatch` on, an audit log.
    Sharded,
    /// An audit log.
    Audited,
}

/// One changing request as the API server's audit log records it (the launcher's
/// `-audit-log`: create, update, patch and delete, at the Metadata level).
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEvent {
    /// The verb (`create`, `patch`, ...).
    pub verb: String,
    /// The client's `User-Agent`.
    #[serde(default)]
    pub user_agent: String,
    /// The object the request was about.
    #[serde(default)]
    pub object_ref: Option<AuditObject>,
    /// The answer.
    #[serde(default)]
    pub response_status: Option<AuditStatus>,
    /// When the API server received the request.
    pub request_received_timestamp: k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime,
}

/// [`AuditEvent::object_ref`].
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct AuditObject {
    /// The resource's plural name.
    #[serde(default)]
    pub resource: String,
    /// Its namespace.
    #[serde(default)]
    pub namespace: String,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// The subresource (`status`), if any.
    #[serde(default)]
    pub subresource: String,
}

/// [`AuditEvent::response_status`].
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct AuditStatus {
    /// The HTTP status code of the answer.
    #[serde(default)]
    pub code: u16,
}

impl Cluster {
    fn start(server: Server) -> Result<Cluster, String> {
        if let Some(path) = std::env::var_os("KONDITION_TEST_KUBECONFIG") {
            let kubeconfig_path = PathBuf::from(path);
            let kubeconfig = Kubeconfig::read_from(&kubeconfig_path)
                .map_err(|e| format!("KONDITION_TEST_KUBECONFIG: {e}"))?;
            return Ok(Cluster {
                kubeconfig,
                kubeconfig_path,
                launcher: None,
                audit_log: None,
            });
        }
        let log = log_path();
        let log = match server {
            Server::Plain => log,
            Server::Sharded => log.with_extension("sharded.log"),
            Server::Audited => log.with_extension("audited.log"),
        };
        // Beside the launcher's own log, pruned with it (`*.log`).
        let audit_log = (server != Server::Plain).then(|| log.with_extension("audit.log"));
        let audit_arg = audit_log
            .as_ref()
            .map(|path| path.display().to_string())
            .unwrap_or_default();
        let mut args = Vec::new();
        if server == Server::Sharded {
            args.extend(["-feature-gates", "ShardedListAndWatch=true"]);
        }
        if audit_log.is_some() {
            args.extend(["-audit-log", audit_arg.as_str()]);
        }
        let started = spawn_launcher(&args, &log)?;
        let kubeconfig_path = started.kubeconfig_path;
        let kubeconfig = Kubeconfig::read_from(&kubeconfig_path)
            .map_err(|e| format!("{}: {e}", kubeconfig_path.display()))?;
        Ok(Cluster {
            kubeconfig,
            kubeconfig_path,
            launcher: Some(Launcher {
                commands: Mutex::new((started.stdin, started.stdout)),
                _child: started.child,
            }),
            audit_log,
        })
    }

    /// Every changing request the API server answered so far, in the order it answered them,
    /// from its audit log (written as each answer is sent). Panics for a cluster started
    /// without one ([`cluster`], or `KONDITION_TEST_KUBECONFIG`'s).
    pub fn audit_events(&self) -> Vec<AuditEvent> {
        let Some(path) = &self.audit_log else {
            panic!(
                "no audit log: only the launcher's sharded_cluster() and audited_cluster() keep one"
            );
        };
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        text.lines()
            .map(|line| {
                serde_json::from_str(line)
                    .unwrap_or_else(|e| panic!("{}: an audit event: {e}: {line}", path.display()))
            })
            .collect()
    }

    /// The kubeconfig of the cluster's admin (system:masters).
    pub fn kubeconfig_path(&self) -> &Path {
        &self.kubeconfig_path
    }

    /// A client of the cluster's admin, for the calling test's runtime.
    ///
    /// It sets no timeouts and no connection-pool timer: tests on tokio's paused clock would
    /// otherwise see the clock jump to the next timer while a request is in flight.
    pub async fn client(&self) -> Client {
        kube::client::ClientBuilder::try_from(self.config("default").await)
            .expect("a client for the test API server")
            .build()
    }

    /// The kubeconfig of the cluster's admin, read.
    pub(crate) fn kubeconfig(&self) -> &Kubeconfig {
        &self.kubeconfig
    }

    /// A client as [`Cluster::client`] (the admin), with `namespace` its default, whose
    /// requests are recorded.
    pub async fn recording_client(&self, namespace: &str) -> (Client, Requests) {
        let client = kube::client::ClientBuilder::try_from(self.config(namespace).await)
            .expect("a client for the test API server")
            .build();
        recorded(client)
    }

    async fn config(&self, namespace: &str) -> Config {
        config_of(&self.kubeconfig, namespace).await
    }

    /// Compacts etcd at its current revision, as its periodic compaction would, and returns
    /// that revision. A watch from an older resourceVersion of a kind kube-apiserver does not
    /// cache (Events) then gets 410 Gone; custom resources are served from the watch cache,
    /// which keeps its own window past a compaction, as on any real cluster.
    pub fn compact(&self) -> i64 {
        let answer = self.command("compact");
        answer
            .strip_prefix("COMPACTED ")
            .and_then(|r| r.parse().ok())
            .unwrap_or_else(|| panic!("the launcher did not compact: {answer}"))
    }

    /// Sends one command line to the launcher and returns its one-line answer.
    fn command(&self, command: &str) -> String {
        let Some(launcher) = &self.launcher else {
            panic!(
                "`{command}` needs the launcher's own etcd, not KONDITION_TEST_KUBECONFIG's cluster"
            );
        };
        let mut pipes = launcher.commands.lock().unwrap_or_else(|e| e.into_inner());
        let (stdin, stdout) = &mut *pipes;
        writeln!(stdin, "{command}").expect("the launcher reads its stdin");
        stdin.flush().expect("the launcher reads its stdin");
        let mut answer = String::new();
        stdout.read_line(&mut answer).expect("the launcher answers");
        answer.trim_end().to_owned()
    }
}

/// The name of the ServiceAccount that [`TestEnv::client`] speaks as, in the test's namespace.
pub const CONTROLLER: &str = "controller";

/// A test's own corner of the cluster: a namespace named after the test, its CRDs installed
/// and Established, a least-privileged recorded client for the controller under test, and an
/// administrator's client for the test itself.
pub struct TestEnv {
    /// The namespace, created for this test.
    pub namespace: String,
    /// The controller's client: it speaks as ServiceAccount [`CONTROLLER`] of the test's
    /// namespace, bound to exactly [`TestEnv::rules`] (what `kondition::permissions` says the
    /// status chokepoint needs for the kinds installed), and its requests are recorded in
    /// [`TestEnv::requests`]; its default namespace is [`TestEnv::namespace`]. For the
    /// chokepoint and its Recorder, never for the test's own reads and writes.
    pub client: Client,
    /// What [`TestEnv::client`] sent, in order (each of kube's own retries included).
    pub requests: Requests,
    /// A client of the cluster's administrator that is not recorded, for the test's own reads
    /// and writes (creating objects, another manager, the test looking at what the server
    /// holds) and for setting a test up.
    pub admin: Client,
    /// What the controller does with each kind installed, from which [`TestEnv::rules`] follow.
    pub kinds: Vec<KindAccess>,
    /// The API server of the test.
    cluster: &'static Cluster,
}

impl TestEnv {
    /// Installs `crds` (server-side apply; the same CRD installed by another test of this
    /// binary is no change), waits until each is Established, creates a namespace named after
    /// the calling test, and the controller's identity: a ServiceAccount bound to the rules
    /// `kondition::permissions` gives for each CRD's kind (`KindAccess::from_crd`), no
    /// finalizer.
    pub async fn new(crds: impl IntoIterator<Item = CustomResourceDefinition>) -> TestEnv {
        Self::with_access(crds, |kind| kind).await
    }

    /// As [`TestEnv::new`], for a controller that runs `kondition::controller::with_finalizer`:
    /// its identity is also allowed what the finalizer needs (`KindAccess::with_finalizer`).
    pub async fn with_finalizer(
        crds: impl IntoIterator<Item = CustomResourceDefinition>,
    ) -> TestEnv {
        Self::with_access(crds, KindAccess::with_finalizer).await
    }

    /// As [`TestEnv::new`], on `cluster` ([`sharded_cluster`], [`audited_cluster`]).
    pub async fn on(
        cluster: &'static Cluster,
        crds: impl IntoIterator<Item = CustomResourceDefinition>,
    ) -> TestEnv {
        Self::with_access_on(cluster, crds, |kind| kind).await
    }

    async fn with_access(
        crds: impl IntoIterator<Item = CustomResourceDefinition>,
        access: impl Fn(KindAccess) -> KindAccess,
    ) -> TestEnv {
        Self::with_access_on(cluster(), crds, access).await
    }

    async fn with_access_on(
        cluster: &'static Cluster,
        crds: impl IntoIterator<Item = CustomResourceDefinition>,
        access: impl Fn(KindAccess) -> KindAccess,
    ) -> TestEnv {
        let admin = cluster.client().await;
        let crds: Vec<CustomResourceDefinition> = crds.into_iter().collect();
        let kinds: Vec<KindAccess> = crds
            .iter()
            .map(|crd| access(KindAccess::from_crd(crd)))
            .collect();
        install(&admin, crds).await;
        let namespace = create_namespace(&admin, &test_name()).await;
        let rules = kondition::permissions::rules(&kinds);
        let Identity {
            client, requests, ..
        } = service_account(cluster, &admin, &namespace, CONTROLLER, rules).await;
        TestEnv {
            namespace,
            client,
            requests,
            admin,
            kinds,
            cluster,
        }
    }

    /// The rules [`TestEnv::client`] is bound to: `kondition::permissions::rules` of
    /// [`TestEnv::kinds`].
    pub fn rules(&self) -> Vec<PolicyRule> {
        kondition::permissions::rules(&self.kinds)
    }

    /// Another identity in the test's namespace: ServiceAccount `name` bound to exactly
    /// `rules` (for instance [`TestEnv::rules`] less one, or with an operator's own added),
    /// with a recorded client of its own.
    pub async fn identity(&self, name: &str, rules: Vec<PolicyRule>) -> Identity {
        service_account(self.cluster, &self.admin, &self.namespace, name, rules).await
    }

    /// An identity that the API server throttles: ServiceAccount `name`, bound to
    /// [`TestEnv::rules`], whose every request API Priority and Fairness answers `429` with a
    /// `Retry-After` header until [`Throttled::release`]. Returns once a request of it was
    /// answered so (see [`crate::throttle`] for how, and what the answer is).
    pub async fn throttled(&self, name: &str) -> Throttled {
        let identity = self.identity(name, self.rules()).await;
        Throttled::new(self.admin.clone(), identity).await
    }

    /// An `Api` of `K` in this test's namespace, through the unrecorded client.
    pub fn api<K>(&self) -> Api<K>
    where
        K: kube::Resource<Scope = kube::core::NamespaceResourceScope>,
        <K as kube::Resource>::DynamicType: Default,
    {
        Api::namespaced(self.admin.clone(), &self.namespace)
    }
}

/// The Events recorded in `namespace`, one entry per occurrence: kube's `Recorder` records an
/// Event equal to an earlier one (reason, note, action, type) as one more of that Event's
/// series, so an Event whose series counts n is listed n times. Counting the Events listed
/// would miss every repeat, which is what a steady state must not have.
pub async fn recorded_events(
    client: &Client,
    namespace: &str,
) -> Vec<k8s_openapi::api::events::v1::Event> {
    Api::<k8s_openapi::api::events::v1::Event>::namespaced(client.clone(), namespace)
        .list(&kube::api::ListParams::default())
        .await
        .expect("the Events")
        .items
        .into_iter()
        .flat_map(|event| {
            let count = event.series.as_ref().map_or(1, |s| s.count.max(1));
            std::iter::repeat_n(event, usize::try_from(count).unwrap_or(1))
        })
        .collect()
}

/// Waits until kondition's clock (`kondition::now()`: the wall clock in whole seconds, which
/// stamps `lastTransitionTime`) is past `time`. A reconcile after this that keeps a time
/// stamped at `time` did keep it, where one within the same second could not be told from one
/// that stamped the time again. Polls the wall clock on a thread of its own (tokio's clock,
/// which a test may pause, does not move it): a wait for a state, under a second, bounded so
/// that a clock that never moves fails the test.
pub async fn past_the_second_of(time: &Time) {
    let time = time.clone();
    tokio::task::spawn_blocking(move || {
        let bound = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while kondition::now() <= time {
            assert!(
                std::time::Instant::now() < bound,
                "kondition::now() still at or before {time:?} after a minute"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    })
    .await
    .expect("the clock's thread");
}

/// Applies each CRD and waits until the API server says it is Established (it then serves
/// the kind). A CRD the server refuses panics with the server's words.
pub async fn install(client: &Client, crds: impl IntoIterator<Item = CustomResourceDefinition>) {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut names = Vec::new();
    for crd in crds {
        let name = crd.name_any();
        api.patch(
            &name,
            &PatchParams::apply(HARNESS).force(),
            &Patch::Apply(&crd),
        )
        .await
        .unwrap_or_else(|e| panic!("the API server refused CRD {name}: {e}"));
        names.push(name);
    }
    for name in names {
        await_condition(api.clone(), &name, conditions::is_crd_established())
            .await
            .unwrap_or_else(|e| panic!("CRD {name} not Established: {e}"));
    }
}

/// Creates a namespace `<base>-<n>` (a DNS label: lowercase, at most 63 characters) and
/// returns its name; `n` makes two calls with the same base in one binary distinct.
pub async fn create_namespace(client: &Client, base: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let suffix = format!("-{n}");
    let mut label: String = base
        .chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' => c,
            'A'..='Z' => c.to_ascii_lowercase(),
            _ => '-',
        })
        .collect();
    label.truncate(63 - suffix.len());
    let label = format!("{}{suffix}", label.trim_matches('-'));
    let namespace: Namespace = serde_json::from_value(serde_json::json!({
        "metadata": {"name": label}
    }))
    .expect("a namespace");
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &namespace)
        .await
        .unwrap_or_else(|e| panic!("namespace {label}: {e}"));
    label
}

/// The running test's name (libtest names each test's thread after it), its last path
/// segment; `test` outside a test thread.
fn test_name() -> String {
    let thread = std::thread::current();
    let name = thread.name().unwrap_or("test");
    let name = name.rsplit("::").next().unwrap_or(name);
    if name == "main" { "test" } else { name }.to_owned()
}

/// A client configuration from a launcher's kubeconfig, with `namespace` its default and no
/// timeouts (see [`Cluster::client`]).
pub(crate) async fn config_of(kubeconfig: &Kubeconfig, namespace: &str) -> Config {
    let mut config =
        Config::from_custom_kubeconfig(kubeconfig.clone(), &KubeConfigOptions::default())
            .await
            .expect("the launcher's kubeconfig");
    config.default_namespace = namespace.to_owned();
    config.connect_timeout = None;
    config.read_timeout = None;
    config.write_timeout = None;
    config
}

/// A launcher that printed `READY`: the process, its pipes and the kubeconfig it wrote.
pub(crate) struct Started {
    pub(crate) child: Child,
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: BufReader<ChildStdout>,
    pub(crate) kubeconfig_path: PathBuf,
}

/// Runs the launcher (`KONDITION_APISERVER`, or the test command's build) with `args`, its
/// output to `log`, and waits until it is ready. A launcher that could not bind a port
/// because another process took it after it was picked (exit status [`EXIT_PORT_TAKEN`]) is
/// started again, up to [`STARTS_ON_TAKEN_PORTS`] times: it picks other ports (a restart on
/// a state folder keeps its own). The error says why not, with the log's end, or how to build
/// a missing launcher.
pub(crate) fn spawn_launcher(args: &[&str], log: &Path) -> Result<Started, String> {
    let mut starts = 1;
    loop {
        match start_launcher(args, log) {
            Err(NotReady {
                port_taken: true,
                reason,
            }) if starts < STARTS_ON_TAKEN_PORTS => {
                eprintln!("starting the launcher again (start {starts}: {reason})");
                starts += 1;
            }
            Err(NotReady { reason, .. }) if starts > 1 => {
                return Err(format!(
                    "{reason}\n(start {starts} of the launcher; a port was taken at each start before)"
                ));
            }
            started => return started.map_err(|not| not.reason),
        }
    }
}

/// The launcher's exit status when a port it had picked was taken by another process before
/// its server bound it (EX_TEMPFAIL; tests/launcher/main.go).
pub const EXIT_PORT_TAKEN: i32 = 75;

/// How many times [`spawn_launcher`] starts a launcher whose ports were taken.
pub(crate) const STARTS_ON_TAKEN_PORTS: u32 = 5;

/// Why a launcher is not ready.
struct NotReady {
    /// It ended with [`EXIT_PORT_TAKEN`].
    port_taken: bool,
    reason: String,
}

/// One start of [`spawn_launcher`].
fn start_launcher(args: &[&str], log: &Path) -> Result<Started, NotReady> {
    let not_ready = |reason: String| NotReady {
        port_taken: false,
        reason,
    };
    let mut child = launcher_command(log)
        .map_err(not_ready)?
        .args(args)
        .spawn()
        .map_err(|e| not_ready(format!("cannot run the launcher: {e}")))?;
    let stdin = child
        .stdin
        .take()
        .ok_or_else(|| not_ready("no stdin".into()))?;
    let mut stdout = BufReader::new(
        child
            .stdout
            .take()
            .ok_or_else(|| not_ready("no stdout".into()))?,
    );
    let mut line = String::new();
    let read = stdout
        .read_line(&mut line)
        .map_err(|e| not_ready(format!("reading the launcher: {e}")))?;
    let Some(path) = line.trim_end().strip_prefix("READY ") else {
        let exit = child.wait().ok();
        return Err(NotReady {
            port_taken: exit.and_then(|status| status.code()) == Some(EXIT_PORT_TAKEN),
            reason: format!(
                "the launcher ended before it was ready ({}); its log, {}, ends with:\n{}",
                if read == 0 {
                    "no output"
                } else {
                    line.trim_end()
                },
                log.display(),
                tail(log, 20)
            ),
        });
    };
    Ok(Started {
        child,
        stdin,
        stdout,
        kubeconfig_path: PathBuf::from(path),
    })
}

/// A command that runs the launcher (`KONDITION_APISERVER`, or the test command's build) with
/// stdin and stdout piped and its output (stderr) to `log`, a new file (`*.log`, under
/// `target/launcher/logs/` as [`log_path`] names them): the older logs there are pruned
/// ([`prune_logs`]). The error says how to build a missing launcher.
pub(crate) fn launcher_command(log: &Path) -> Result<Command, String> {
    let binary = std::env::var_os("KONDITION_APISERVER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_LAUNCHER));
    if !binary.is_file() {
        return Err(format!(
            "no launcher at {}: build it with `bash tests/run.sh` (the README's test \
             command), or `go build -o target/launcher/kondition-apiserver .` in \
             tests/launcher/ with GOTOOLCHAIN=local CGO_ENABLED=0",
            binary.display()
        ));
    }
    if let Some(folder) = log.parent() {
        std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    }
    let log_file = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    if let Some(folder) = log.parent() {
        prune_logs(folder, KEPT_LOGS);
    }
    let mut command = Command::new(&binary);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log_file);
    Ok(command)
}

/// How many launcher logs [`prune_logs`] keeps: those of a few whole runs of the suite (which
/// starts some twenty launchers), so that the logs of a failed run are still there to read
/// after the next one.
const KEPT_LOGS: usize = 50;

/// Removes the launcher logs (`*.log`) of `folder` but the `keep` last written, so that the
/// folder does not grow without bound: run by each launcher start. The newest are kept rather
/// than those of live processes, because a run's logs matter most once its processes are gone
/// (a failed test binary's). A log removed while its launcher still writes (another suite's,
/// more than `keep` starts ago) only loses its name: the launcher writes on.
fn prune_logs(folder: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let mut logs: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|entry| entry.path().extension().is_some_and(|e| e == "log"))
        .filter_map(|entry| Some((entry.metadata().ok()?.modified().ok()?, entry.path())))
        .collect();
    // Newest first; equal times by name, so that two starts agree on the order.
    logs.sort_by(|a, b| b.cmp(a));
    for (_, path) in logs.into_iter().skip(keep) {
        // Another start may have removed it first.
        let _ = std::fs::remove_file(path);
    }
}

/// `target/launcher/logs/<test binary>-<pid>.log`: where the launcher's output goes.
pub(crate) fn log_path() -> PathBuf {
    let binary = std::env::current_exe()
        .ok()
        .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "tests".to_owned());
    Path::new(DEFAULT_LAUNCHER)
        .with_file_name("logs")
        .join(format!("{binary}-{}.log", std::process::id()))
}

/// The last `lines` lines of a file, for error messages.
fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A launcher whose port is taken at every start (a state folder naming a port this test
    /// holds) is started [`STARTS_ON_TAKEN_PORTS`] times, then given up with the reason.
    #[test]
    fn a_port_taken_at_every_start_is_given_up_after_the_last_start() {
        let held = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let state = std::env::temp_dir().join(format!(
            "kondition-launcher-port-taken-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&state);
        std::fs::create_dir_all(&state).expect("a state folder");
        let addresses = crate::restart::addresses_with_api_server(&held);
        std::fs::write(state.join("addresses.json"), addresses.to_string())
            .expect("addresses.json");
        let log = log_path().with_extension("port-taken.log");
        let reason = match spawn_launcher(&["-state", &state.to_string_lossy()], &log) {
            Ok(_) => panic!("the launcher started on a port another process holds"),
            Err(reason) => reason,
        };
        let _ = std::fs::remove_dir_all(&state);
        drop(held);
        assert!(
            reason.contains("address already in use")
                && reason.ends_with(&format!(
                    "(start {STARTS_ON_TAKEN_PORTS} of the launcher; a port was taken at each start before)"
                )),
            "{reason}"
        );
    }
}
