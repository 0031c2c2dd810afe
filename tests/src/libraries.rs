//! The API server's own libraries behind the fake cluster: `tests/apiserver/`, a small Go
//! program that merges every write with sigs.k8s.io/structured-merge-diff and validates
//! it against the CRD's schema with kube-openapi's validator, as kube-apiserver does for a
//! custom resource. It runs as a child process per [`Libraries`] and answers one JSON line
//! per request; calls are synchronous, under a mutex, so no test depends on timing.
//!
//! The program is built on first use into the target directory (`target/<profile>/
//! kondition-apiserver/`), once per test binary (Go's build cache makes later builds
//! instant), from Debian's packages: `golang-go`, `golang-k8s-sigs-structured-merge-diff-dev`
//! and `golang-k8s-kube-openapi-dev`. `bash tests/run.sh` installs them when missing. There
//! is no fallback: without them, the tests that need the fake cluster fail and say how to
//! install them.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use serde_json::{Value, json};

/// The Debian packages the program is built from.
pub const PACKAGES: &str =
    "golang-go golang-k8s-sigs-structured-merge-diff-dev golang-k8s-kube-openapi-dev";

/// What the libraries made of a write.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Accepted: the object to store (managed fields included, resourceVersion still the
    /// live one) and whether it differs from the live object.
    Stored {
        /// The merged, validated object.
        object: Value,
        /// Whether anything changed, managed fields included (if not, no new
        /// resourceVersion).
        changed: bool,
    },
    /// Refused with this HTTP status code and `Status` body (409 for an apply conflict, 422
    /// for a schema violation, 400 for a body that does not fit the schema).
    Refused {
        /// The HTTP status code.
        code: u16,
        /// The API server's `Status` body.
        status: Value,
    },
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Drop for Process {
    fn drop(&mut self) {
        // The program would end when its stdin closes; kill it to be sure, and wait for it
        // so that no zombie is left.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One running copy of the program, for one CRD version.
pub struct Libraries {
    process: Mutex<Process>,
}

impl std::fmt::Debug for Libraries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Libraries")
    }
}

impl Libraries {
    /// Starts the program for `crd` at `version`.
    ///
    /// # Panics
    /// When the program cannot be built (Go or the Debian packages are missing: the
    /// message says how to install them) or refuses the CRD.
    pub fn start(crd: &CustomResourceDefinition, version: &str) -> Self {
        let binary = match binary() {
            Ok(path) => path,
            Err(message) => panic!("{message}"),
        };
        let mut child = Command::new(binary)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", binary.display()));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let libraries = Self {
            process: Mutex::new(Process {
                child,
                stdin,
                stdout,
            }),
        };
        let answer = libraries.call(&json!({"op": "init", "crd": crd, "version": version}));
        assert_eq!(
            answer["code"], 200,
            "the API server's libraries refused the CRD: {answer}"
        );
        libraries
    }

    /// A server-side apply of `patch` by `manager` over `live` (`subresource` is
    /// `"status"` for `/status`, `""` for the main resource).
    pub fn apply(
        &self,
        live: &Value,
        patch: &Value,
        manager: &str,
        force: bool,
        subresource: &str,
        now: &str,
    ) -> Outcome {
        self.write(
            json!({"op": "apply", "live": live, "object": patch, "manager": manager,
                          "force": force, "subresource": subresource, "now": now}),
        )
    }

    /// An update (PUT, or a create when `live` is null) of the whole `object` by `manager`.
    pub fn update(
        &self,
        live: &Value,
        object: &Value,
        manager: &str,
        subresource: &str,
        now: &str,
    ) -> Outcome {
        self.write(
            json!({"op": "update", "live": live, "object": object, "manager": manager,
                          "subresource": subresource, "now": now}),
        )
    }

    fn write(&self, request: Value) -> Outcome {
        let mut answer = self.call(&request);
        let code = answer["code"].as_u64().unwrap_or(0) as u16;
        if code == 200 {
            Outcome::Stored {
                object: answer["object"].take(),
                changed: answer["changed"] == true,
            }
        } else {
            Outcome::Refused {
                code,
                status: answer["status"].take(),
            }
        }
    }

    fn call(&self, request: &Value) -> Value {
        let mut process = self
            .process
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut line = request.to_string();
        line.push('\n');
        process
            .stdin
            .write_all(line.as_bytes())
            .and_then(|()| process.stdin.flush())
            .expect("writing to kondition-apiserver (did it crash? see its stderr above)");
        let mut answer = String::new();
        process
            .stdout
            .read_line(&mut answer)
            .expect("reading from kondition-apiserver");
        serde_json::from_str(&answer).unwrap_or_else(|e| {
            panic!("kondition-apiserver answered {answer:?} ({e}); see its stderr above")
        })
    }
}

/// The program, built once per test binary.
fn binary() -> Result<&'static Path, String> {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BINARY
        .get_or_init(build)
        .as_ref()
        .map(PathBuf::as_path)
        .map_err(Clone::clone)
}

/// `go build` of `tests/apiserver` into `target/<profile>/kondition-apiserver/`, in GOPATH
/// mode against Debian's packages (which install no modules).
fn build() -> Result<PathBuf, String> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("apiserver");
    // The test binary is target/<profile>/deps/<name>: build beside deps/.
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or("the test binary has no target directory")?;
    let out_dir = profile_dir.join("kondition-apiserver");
    let output = out_dir.join("kondition-apiserver");
    let how = format!(
        "the fake cluster merges and validates every write with the API server's own \
         libraries, built from Debian's packages ({PACKAGES}).\nInstall them with \
         `bash tests/run.sh` (the README's test command, which installs what is missing) \
         or `apt-get install -y {PACKAGES}`."
    );
    let result = Command::new("go")
        .args(["build", "-o"])
        .arg(&output)
        .arg(".")
        .current_dir(&source)
        .env("GO111MODULE", "off")
        .env("GOPATH", "/usr/share/gocode")
        .env("GOCACHE", out_dir.join("go-cache"))
        .env("GOFLAGS", "")
        .output();
    match result {
        Err(e) => Err(format!("`go` could not be run ({e}): {how}")),
        Ok(out) if !out.status.success() => Err(format!(
            "`go build` of {} failed:\n{}\n{how}",
            source.display(),
            String::from_utf8_lossy(&out.stderr)
        )),
        Ok(_) => Ok(output),
    }
}
