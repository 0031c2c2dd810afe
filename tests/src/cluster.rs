//! The real Kubernetes API server for the tests: kube-apiserver with etcd embedded, run by
//! the launcher in `tests/launcher/` (a Go program built from `k8s.io/kubernetes`), one per
//! test binary, started on first use and stopped when the binary exits (the launcher stops
//! when its stdin closes, which the kernel does for a process however it ends).
//!
//! [`TestEnv::new`] gives a test a namespace of its own, named after the test, with its CRDs
//! installed and Established, and a `kube::Client` whose requests are recorded
//! ([`Requests`]): tests assert the exact requests a controller sends and what the real
//! server then holds.
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
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::runtime::wait::{await_condition, conditions};
use kube::{Api, Client, Config, ResourceExt};

use crate::recording::{Requests, recorded};

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
    match CLUSTER.get_or_init(Cluster::start) {
        Ok(cluster) => cluster,
        Err(reason) => panic!("the test API server did not start: {reason}"),
    }
}

impl Cluster {
    fn start() -> Result<Cluster, String> {
        if let Some(path) = std::env::var_os("KONDITION_TEST_KUBECONFIG") {
            let kubeconfig_path = PathBuf::from(path);
            let kubeconfig = Kubeconfig::read_from(&kubeconfig_path)
                .map_err(|e| format!("KONDITION_TEST_KUBECONFIG: {e}"))?;
            return Ok(Cluster {
                kubeconfig,
                kubeconfig_path,
                launcher: None,
            });
        }
        let started = spawn_launcher(&[], &log_path())?;
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
        })
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

    /// A client as [`Cluster::client`], with `namespace` its default, whose requests are
    /// recorded.
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

/// A test's own corner of the cluster: a namespace named after the test, its CRDs installed
/// and Established, and a recorded client.
pub struct TestEnv {
    /// The namespace, created for this test.
    pub namespace: String,
    /// A client whose requests are recorded in [`TestEnv::requests`]; its default namespace
    /// is [`TestEnv::namespace`].
    pub client: Client,
    /// What [`TestEnv::client`] sent, in order.
    pub requests: Requests,
    /// A client that is not recorded, for the test's own reads and writes (another manager,
    /// or the test looking at what the server holds).
    pub admin: Client,
}

impl TestEnv {
    /// Installs `crds` (server-side apply; the same CRD installed by another test of this
    /// binary is no change), waits until each is Established, and creates a namespace named
    /// after the calling test.
    pub async fn new(crds: impl IntoIterator<Item = CustomResourceDefinition>) -> TestEnv {
        let cluster = cluster();
        let admin = cluster.client().await;
        install(&admin, crds).await;
        let namespace = create_namespace(&admin, &test_name()).await;
        let (client, requests) = cluster.recording_client(&namespace).await;
        TestEnv {
            namespace,
            client,
            requests,
            admin,
        }
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
/// output to `log`, and waits until it is ready. The error says why not, with the log's end,
/// or how to build a missing launcher.
pub(crate) fn spawn_launcher(args: &[&str], log: &Path) -> Result<Started, String> {
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
    let mut child = Command::new(&binary)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log_file)
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let mut stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut line = String::new();
    let read = stdout
        .read_line(&mut line)
        .map_err(|e| format!("reading the launcher: {e}"))?;
    let Some(path) = line.trim_end().strip_prefix("READY ") else {
        let _ = child.wait();
        return Err(format!(
            "the launcher ended before it was ready ({}); its log, {}, ends with:\n{}",
            if read == 0 {
                "no output"
            } else {
                line.trim_end()
            },
            log.display(),
            tail(log, 20)
        ));
    };
    Ok(Started {
        child,
        stdin,
        stdout,
        kubeconfig_path: PathBuf::from(path),
    })
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
