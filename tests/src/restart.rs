//! An API server of a test's own that stops and starts again on the same data, as a real
//! one restarted in place: the launcher runs with `-state DIR`, which keeps etcd's data, the
//! certificates and the addresses, so a client made before the restart reaches the new
//! process at the same address and trusts it. The shared server of [`crate::cluster`] is
//! never restarted: the other tests of the binary use it. [`LauncherProcess`] runs a launcher
//! by hand, for tests of how it stops.

use std::path::PathBuf;
use std::process::{Child, ChildStdin};
use std::sync::atomic::{AtomicU32, Ordering};

use kube::Client;
use kube::config::Kubeconfig;

use crate::cluster::{config_of, launcher_command, log_path, spawn_launcher};

/// A launcher on a state folder of its own; the folder is removed when this is dropped.
pub struct RestartableServer {
    state: PathBuf,
    kubeconfig: Kubeconfig,
    running: Option<Running>,
    starts: u32,
}

/// The process and the pipe whose closing stops it.
struct Running {
    child: Child,
    stdin: ChildStdin,
}

impl RestartableServer {
    /// Starts a launcher on a new state folder and waits until it is ready. Panics with the
    /// launcher's reason (and how to build it) when it cannot start.
    pub fn start() -> RestartableServer {
        static NEXT: AtomicU32 = AtomicU32::new(1);
        let state = std::env::temp_dir().join(format!(
            "kondition-apiserver-state-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        // A folder left by a process of the same id that was killed: start afresh.
        let _ = std::fs::remove_dir_all(&state);
        let mut server = RestartableServer {
            state,
            kubeconfig: Kubeconfig::default(),
            running: None,
            starts: 0,
        };
        server.kubeconfig = server.launch();
        server
    }

    /// Stops the launcher (its stdin closes) and waits until the process has exited: the
    /// API server and etcd are gone, their ports free, their data kept.
    pub fn stop(&mut self) {
        if let Some(Running { mut child, stdin }) = self.running.take() {
            drop(stdin);
            let exit = child.wait().expect("the launcher ends");
            assert!(exit.success(), "the launcher stopped with {exit}");
        }
    }

    /// Starts the launcher again on the same folder and waits until it is ready. The
    /// kubeconfig it writes names the same server, with the same certificates.
    pub fn start_again(&mut self) {
        assert!(self.running.is_none(), "stop the server first");
        let kubeconfig = self.launch();
        let same = |k: &Kubeconfig| serde_json::to_value(k).expect("a kubeconfig is JSON");
        assert_eq!(
            same(&kubeconfig),
            same(&self.kubeconfig),
            "a restarted server has the same address and certificates"
        );
    }

    /// A client of the server's admin, with no timeouts (see `Cluster::client`). It outlives
    /// restarts: its requests fail while the server is stopped and reach it again after.
    pub async fn client(&self) -> Client {
        kube::client::ClientBuilder::try_from(config_of(&self.kubeconfig, "default").await)
            .expect("a client for the test API server")
            .build()
    }

    /// Runs the launcher on the state folder; returns the kubeconfig it wrote.
    fn launch(&mut self) -> Kubeconfig {
        self.starts += 1;
        let state = self.state.to_string_lossy().into_owned();
        let log = log_path().with_extension(format!("restartable-{}.log", self.starts));
        let started = spawn_launcher(&["-state", &state], &log)
            .unwrap_or_else(|reason| panic!("the test API server did not start: {reason}"));
        let kubeconfig = Kubeconfig::read_from(&started.kubeconfig_path)
            .unwrap_or_else(|e| panic!("{}: {e}", started.kubeconfig_path.display()));
        self.running = Some(Running {
            child: started.child,
            stdin: started.stdin,
        });
        kubeconfig
    }
}

impl Drop for RestartableServer {
    fn drop(&mut self) {
        if let Some(Running { mut child, stdin }) = self.running.take() {
            drop(stdin);
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.state);
    }
}

/// A launcher run by hand, for tests of the launcher's own life (stdin closing before READY, a
/// signal): its temporary folder made in a scratch folder of its own (`TMPDIR`), or its state
/// in the scratch folder's `state` (`-state`), its stdin and stdout piped, its output to a log
/// named after `what`. The scratch folder is removed when this is dropped; the process is
/// killed if still running.
pub struct LauncherProcess {
    /// The process.
    pub child: Child,
    /// The scratch folder the launcher makes its temporary folder in: empty once it is gone.
    pub tmpdir: PathBuf,
}

/// The `addresses.json` of a state folder whose API server port is `api_server`'s (a port the
/// caller holds, so the launcher finds it taken) and whose etcd ports were free a moment ago.
pub fn addresses_with_api_server(api_server: &std::net::TcpListener) -> serde_json::Value {
    let address = |listener: &std::net::TcpListener| {
        listener
            .local_addr()
            .expect("a listener's address")
            .to_string()
    };
    let free = || address(&std::net::TcpListener::bind("127.0.0.1:0").expect("a free port"));
    serde_json::json!({
        "apiServer": address(api_server),
        "etcdClient": free(),
        "etcdPeer": free(),
    })
}

impl LauncherProcess {
    /// Starts the launcher, with `-state <scratch folder>/state` if `state` (it is not waited
    /// for). Panics if it cannot run.
    pub fn spawn(what: &str, state: bool) -> LauncherProcess {
        Self::spawn_on(what, state, None)
    }

    /// As [`LauncherProcess::spawn`] with `-state`, on a state folder whose `addresses.json`
    /// is `addresses` (as a launcher that ran on it before wrote it).
    pub fn spawn_on_addresses(what: &str, addresses: &serde_json::Value) -> LauncherProcess {
        Self::spawn_on(what, true, Some(addresses))
    }

    fn spawn_on(what: &str, state: bool, addresses: Option<&serde_json::Value>) -> LauncherProcess {
        static NEXT: AtomicU32 = AtomicU32::new(1);
        let tmpdir = std::env::temp_dir().join(format!(
            "kondition-launcher-{what}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&tmpdir);
        std::fs::create_dir_all(&tmpdir).expect("a scratch folder");
        let log = log_path().with_extension(format!("{what}.log"));
        let state_folder = tmpdir.join("state");
        if let Some(addresses) = addresses {
            std::fs::create_dir_all(&state_folder).expect("a state folder");
            std::fs::write(state_folder.join("addresses.json"), addresses.to_string())
                .expect("addresses.json");
        }
        let state_folder = state_folder.to_string_lossy().into_owned();
        let args: &[&str] = if state {
            &["-state", &state_folder]
        } else {
            &[]
        };
        let child = launcher_command(&log)
            .unwrap_or_else(|reason| panic!("{reason}"))
            .args(args)
            .env("TMPDIR", &tmpdir)
            .spawn()
            .expect("the launcher runs");
        LauncherProcess { child, tmpdir }
    }

    /// What the scratch folder holds, by name.
    pub fn leftovers(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.tmpdir)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    /// Waits (polling, with a generous bound) until the process has exited; its exit status.
    pub fn wait_exit(&mut self) -> std::process::ExitStatus {
        let bound = std::time::Instant::now() + std::time::Duration::from_secs(600);
        loop {
            if let Some(status) = self.child.try_wait().expect("the launcher's status") {
                return status;
            }
            assert!(
                std::time::Instant::now() < bound,
                "the launcher (pid {}) still runs after 10 minutes",
                self.child.id()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

impl Drop for LauncherProcess {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.tmpdir);
    }
}
