//! The `kondition` command line: its arguments (clap) and each subcommand run on the
//! pipeline, the writers and the checkers. The binary (`src/main.rs`) only calls [`main`].
//!
//! Exit codes: 0 success, 1 drift (`check`) or violations (`check-status`), 2 bad input or
//! usage.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::derives::Derives;
use crate::emit::{self, OutputFile};
use crate::output;
use crate::pipeline::{Layout, Observer, Pipeline};
use clap::{CommandFactory, Parser, Subcommand};

/// Rust CRD types with kondition's standard status, from schema files.
#[derive(Parser)]
#[command(
    name = "kondition",
    version,
    about,
    after_long_help = "Exit codes: 0 success, 1 drift (check) or violations (check-status), \
        2 bad input or usage. \
        Input errors are printed as path:line:col: message, and nothing is written."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write Rust types for schema files (by default schemas/ into generated/src/).
    Generate(GenerateArgs),
    /// Exit 1 with a unified diff if the output on disk differs from what generate writes.
    Check(GenerateArgs),
    /// Write CRD manifests, one file per kind (or all to stdout with `--out -`, the default).
    Crd(CrdArgs),
    /// Turn CRD YAML into schema files, one per kind (or all to stdout, the default).
    Import(ImportArgs),
    /// Print the ClusterRole the status chokepoint needs for the kinds of schema or CRD
    /// files (or write it to a file with `--out FILE`).
    Rbac(RbacArgs),
    /// Check objects' statuses offline against their CRDs: the CRD's schema (and CEL rules),
    /// the API conventions and kstatus' conventions. Prints `file: namespace/name: path: rule:
    /// message` per violation; exit 1 if any is an error, 2 on bad input.
    CheckStatus(CheckStatusArgs),
    /// Say whether the status chokepoint drives KIND's status, and if not, every reason, each
    /// at the line of its field in the CRD.
    Explain(ExplainArgs),
    /// Print the JSON Schema of the schema format.
    Schema,
    /// Print a completion script for a shell (bash, zsh, fish, elvish or powershell).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `kondition man > kondition.1`; with `--out DIR`,
    /// write it and one page per subcommand into DIR instead.
    Man {
        /// The folder for kondition.1 and kondition-<subcommand>.1.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
struct GenerateArgs {
    /// Schema files, CRD files or folders of them (default: schemas/).
    paths: Vec<PathBuf>,
    /// The output folder; DIR/lib.rs is the root module (default: generated/src/).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// A folder of additional status profiles.
    #[arg(long, value_name = "DIR")]
    profiles: Option<PathBuf>,
    /// Generate only this kind (repeatable): `Kind`, `Kind/version`, or `Kind.group` where
    /// two groups share a kind name. Default: every kind.
    #[arg(long = "kind", value_name = "KIND")]
    kinds: Vec<String>,
    /// Copy every structure of a CRD, instead of using k8s-openapi's type where a subtree
    /// has its structure (Container, Affinity, ...).
    /// (`--no-well-known`, its former name, is kept as an alias.)
    #[arg(long, alias = "no-well-known")]
    no_reuse: bool,
    /// The condition types, beyond the profile's, of a kind read from a CRD whose status is
    /// the standard one (repeatable): `Kind=Ready,Synced`.
    #[arg(long = "conditions", value_name = "KIND=TYPES", value_parser = kind_and_value)]
    conditions: Vec<(String, String)>,
    /// The profile of a kind read from a CRD whose status is the standard one (repeatable):
    /// `Kind=kstatus`. Default: standard.
    #[arg(long = "profile", value_name = "KIND=PROFILE", value_parser = kind_and_value)]
    profile: Vec<(String, String)>,
    /// Leave these derives out of the generated data types (repeatable, or comma-separated):
    /// PartialEq (with it Eq), Eq, Hash, Default. Kept where kondition needs them (the types
    /// a KubeStatus status holds keep PartialEq); Clone, Debug and serde's always stay.
    #[arg(
        long = "without-derive",
        value_name = "DERIVE",
        value_delimiter = ',',
        value_parser = clap::builder::ValueParser::new(derive_name)
    )]
    without_derive: Vec<crate::derives::Derive>,
    /// Say you know what the status chokepoint can and cannot do with KIND's atomic
    /// `conditions` list (repeatable): the note that says it is not printed for KIND.
    #[arg(long = "acknowledge-atomic-list", value_name = "KIND")]
    acknowledged_atomic_lists: Vec<String>,
    /// The summary condition of a kind read from a CRD whose status kondition drives
    /// (repeatable): `Kind=Admitted`, one of its profile's condition types or of
    /// `--conditions`. Default: the profile's (Ready for standard).
    #[arg(long = "summary", value_name = "KIND=TYPE", value_parser = kind_and_value)]
    summary: Vec<(String, String)>,
    /// Leave KIND's status as plain types (repeatable), though kondition could drive it: no
    /// `KubeStatus`, so no status chokepoint on it. For a kind the operator only reads, or
    /// whose conditions never include the profile's summary condition.
    #[arg(long = "no-drive", value_name = "KIND")]
    not_driven: Vec<String>,
}

impl GenerateArgs {
    /// How CRDs are read.
    fn crd_options(&self) -> crate::crd::Options {
        let mut options = crate::crd::Options {
            reuse_k8s_types: !self.no_reuse,
            acknowledged_atomic_lists: self.acknowledged_atomic_lists.clone(),
            not_driven: self.not_driven.clone(),
            ..Default::default()
        };
        for (kind, types) in &self.conditions {
            let choice = options.statuses.entry(kind.clone()).or_default();
            choice.conditions.extend(
                types
                    .split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_owned),
            );
        }
        for (kind, profile) in &self.profile {
            options.statuses.entry(kind.clone()).or_default().profile = Some(profile.clone());
        }
        for (kind, summary) in &self.summary {
            options.statuses.entry(kind.clone()).or_default().summary = Some(summary.clone());
        }
        options
    }
}

/// A derive that can be left out, by name; the error says why another cannot.
fn derive_name(text: &str) -> Result<crate::derives::Derive, crate::derives::DeriveError> {
    text.parse()
}

/// `KIND=VALUE`, split.
fn kind_and_value(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((kind, value)) if !kind.is_empty() && !value.is_empty() => {
            Ok((kind.to_owned(), value.to_owned()))
        }
        _ => Err(format!("`{text}` is not KIND=VALUE")),
    }
}

#[derive(clap::Args)]
struct CrdArgs {
    /// Schema files, CRD files or folders of them (default: schemas/).
    paths: Vec<PathBuf>,
    /// The output folder, or `-` for stdout.
    #[arg(long, value_name = "DIR", default_value = "-")]
    out: PathBuf,
    /// A folder of additional status profiles.
    #[arg(long, value_name = "DIR")]
    profiles: Option<PathBuf>,
    /// Only this kind's CRD (repeatable): `Kind` or `Kind.group`.
    #[arg(long = "kind", value_name = "KIND")]
    kinds: Vec<String>,
}

#[derive(clap::Args)]
struct RbacArgs {
    /// Schema files, CRD files or folders of them (default: schemas/).
    paths: Vec<PathBuf>,
    /// The ClusterRole's name (default: `<group>-status-writer` when every kind is of one API
    /// group, else `kondition-status-writer`).
    #[arg(long, value_name = "NAME", value_parser = role_name)]
    name: Option<String>,
    /// Also grant what a reconciler with kondition's finalizer (`with_finalizer`) needs:
    /// `patch` on each kind.
    #[arg(long)]
    finalizer: bool,
    /// The output file, or `-` for stdout.
    #[arg(long, value_name = "FILE", default_value = "-")]
    out: PathBuf,
    /// A folder of additional status profiles.
    #[arg(long, value_name = "DIR")]
    profiles: Option<PathBuf>,
    /// Only this kind (repeatable): `Kind` or `Kind.group`.
    #[arg(long = "kind", value_name = "KIND")]
    kinds: Vec<String>,
}

/// A ClusterRole's name as the API server takes it: a path segment (not empty, `.` or `..`,
/// without `/` or `%`).
fn role_name(text: &str) -> Result<String, String> {
    if text.is_empty() || text == "." || text == ".." || text.contains(['/', '%']) {
        return Err(
            "a ClusterRole's name cannot be empty, `.` or `..`, or contain `/` or `%`".to_owned(),
        );
    }
    Ok(text.to_owned())
}

#[derive(clap::Args)]
struct CheckStatusArgs {
    /// Object files (YAML or JSON; many documents, `kind: List` items), folders of them, or
    /// `-` for stdin (`kubectl get widgets -o yaml | kondition check-status --crd crd.yaml -`).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// A file of one or more CRDs (repeatable); each object is checked against the CRD of its
    /// group, kind and version.
    #[arg(long = "crd", value_name = "FILE", required = true)]
    crds: Vec<PathBuf>,
}

#[derive(clap::Args)]
struct ExplainArgs {
    /// The kind: `Kind`, `Kind/version` or `Kind.group` where two groups share a kind name.
    kind: String,
    /// Schema files, CRD files or folders of them (default: schemas/).
    paths: Vec<PathBuf>,
    /// A folder of additional status profiles.
    #[arg(long, value_name = "DIR")]
    profiles: Option<PathBuf>,
}

#[derive(clap::Args)]
struct ImportArgs {
    /// A CRD file, or `-` for stdin.
    file: PathBuf,
    /// The output folder (one `<kind>.yaml` per kind); stdout when absent.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

const DRIFT: u8 = 1;
/// `check-status` found a violation the API server or kstatus would hold against the status.
const VIOLATIONS: u8 = 1;
const BAD_INPUT: u8 = 2;

/// Runs the command line `std::env::args` holds, printing what it reports; the exit code
/// says how it went.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { BAD_INPUT } else { 0 });
        }
    };
    match cli.command {
        Command::Schema => {
            print!("{}", crate::format::JSON_SCHEMA);
            ExitCode::SUCCESS
        }
        Command::Generate(args) => run(&args, false),
        Command::Check(args) => run(&args, true),
        Command::Crd(args) => crd(&args),
        Command::Import(args) => import(&args),
        Command::CheckStatus(args) => check_status(&args),
        Command::Rbac(args) => rbac(&args),
        Command::Explain(args) => explain(&args),
        Command::Completions { shell } => {
            // Written to memory first: clap_complete panics when its writer fails (a closed
            // pipe), and the page is small.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "kondition", &mut script);
            print_bytes(&script)
        }
        Command::Man { out: Some(dir) } => finish(
            std::fs::create_dir_all(&dir)
                .and_then(|()| clap_mangen::generate_to(Cli::command(), &dir))
                .map_err(|e| format!("{}: {e}\n", dir.display())),
        ),
        Command::Man { out: None } => {
            // The page --out writes as kondition.1: without the `help` subcommand, which has
            // no page of its own.
            let mut page = Vec::new();
            let command = Cli::command().disable_help_subcommand(true);
            match clap_mangen::Man::new(command).render(&mut page) {
                Ok(()) => print_bytes(&page),
                Err(error) => finish(Err(format!("man page: {error}\n"))),
            }
        }
    }
}

/// Writes `bytes` to stdout; a failed write (a closed pipe) is reported, not a panic.
fn print_bytes(bytes: &[u8]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    finish(
        out.write_all(bytes)
            .and_then(|()| out.flush())
            .map_err(|e| format!("stdout: {e}\n")),
    )
}

/// Prints what `result` failed with and gives exit code 2, or the success code.
fn finish(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprint!("{message}");
            ExitCode::from(BAD_INPUT)
        }
    }
}

fn crd(args: &CrdArgs) -> ExitCode {
    finish((|| {
        // The manifests are the CRDs: what an atomic conditions list means for the status
        // chokepoint does not concern them.
        let options = crate::crd::Options {
            atomic_list_notes: false,
            ..crate::crd::Options::default()
        };
        let model = load(
            "crd",
            &args.paths,
            args.profiles.as_ref(),
            &args.kinds,
            &options,
        )?;
        if args.out.as_os_str() == "-" {
            print!("{}", emit::crd_stream(&model));
            return Ok(());
        }
        let options = emit::Options {
            inputs_relative_to: Some(args.out.clone()),
        };
        let files = emit::crd_manifests(&model, &options);
        report_writes(&output::write_files(&args.out, &files), &args.out)
    })())
}

fn rbac(args: &RbacArgs) -> ExitCode {
    finish((|| {
        let model = load(
            "rbac",
            &args.paths,
            args.profiles.as_ref(),
            &args.kinds,
            &crate::crd::Options::default(),
        )?;
        let name = args
            .name
            .clone()
            .unwrap_or_else(|| emit::rbac::default_name(&model));
        let yaml = emit::rbac::cluster_role_yaml(&model, &name, args.finalizer)
            .map_err(|d| format!("{d}\n"))?;
        if args.out.as_os_str() == "-" {
            // A closed pipe is reported, not a panic.
            let mut out = std::io::stdout().lock();
            return out
                .write_all(yaml.as_bytes())
                .and_then(|()| out.flush())
                .map_err(|e| format!("stdout: {e}\n"));
        }
        let Some(file_name) = args.out.file_name() else {
            return Err(format!(
                "`--out {}`: not a file path; name a file, or `-` for stdout\n",
                args.out.display()
            ));
        };
        let dir = match args.out.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => std::path::Path::new("."),
        };
        let file = OutputFile {
            path: PathBuf::from(file_name),
            contents: yaml,
        };
        match output::write_files(dir, &[file]) {
            // Written only when it changed, as `generate` and `crd` write.
            Ok(written) if written.is_empty() => Ok(()),
            Ok(_) => {
                eprintln!("wrote {}", args.out.display());
                Ok(())
            }
            Err(error) => Err(output_error(
                &format!("cannot write {}: ", args.out.display()),
                &error,
            )),
        }
    })())
}

/// `explain`: whether each kind chosen is driven, and every reason it is not, at its line.
fn explain(args: &ExplainArgs) -> ExitCode {
    let result = (|| -> Result<String, String> {
        // Notes concern a generation; `explain` says all there is of one kind.
        let options = crate::crd::Options {
            atomic_list_notes: false,
            ..crate::crd::Options::default()
        };
        let model = load(
            "explain",
            &args.paths,
            args.profiles.as_ref(),
            std::slice::from_ref(&args.kind),
            &options,
        )?;
        let mut text = String::new();
        for file in &model.files {
            let documents = if file.kinds.iter().any(|k| k.source_crd.is_some()) {
                let yaml = crate::source::diagnostic::read_input(&file.path)
                    .map_err(|d| format!("{d}\n"))?;
                crate::source::yaml::parse(&yaml).map_err(|e| {
                    format!(
                        "{}\n",
                        crate::source::diagnostic::Diagnostic::new(&file.path, e.pos, e.message)
                    )
                })?
            } else {
                Vec::new()
            };
            for kind in &file.kinds {
                for line in crate::crd::status::explain(kind, &documents) {
                    text.push_str(&format!("{line}\n"));
                }
            }
        }
        Ok(text)
    })()
    .map(|text| print_bytes(text.as_bytes()));
    match result {
        Ok(code) => code,
        Err(message) => finish(Err(message)),
    }
}

fn import(args: &ImportArgs) -> ExitCode {
    finish((|| {
        let (path, text) = if args.file.as_os_str() == "-" {
            let text = crate::source::diagnostic::read_limited(std::io::stdin().lock())
                .map_err(|e| format!("<stdin>: {e}\n"))?;
            (PathBuf::from("<stdin>"), text)
        } else {
            let text =
                crate::source::diagnostic::read_input(&args.file).map_err(|d| format!("{d}\n"))?;
            (args.file.clone(), text)
        };
        let (file, notes) = crate::load::read_crd_text(&path, &text).map_err(|d| d.to_string())?;
        for note in notes {
            eprintln!("{note}");
        }
        let mut files = Vec::new();
        for kind in &file.kinds {
            let (text, notes) = emit::schema_file::schema_file(kind);
            for note in notes {
                eprintln!("{}: note: {}: {note}", path.display(), kind.kind);
            }
            files.push(OutputFile {
                path: PathBuf::from(format!("{}.yaml", kind.kind.to_ascii_lowercase())),
                contents: text,
            });
        }
        match &args.out {
            None => {
                for file in &files {
                    print!("---\n{}", file.contents);
                }
                Ok(())
            }
            Some(out) => report_writes(&output::write_files(out, &files), out),
        }
    })())
}

/// `check-status`: the violations printed to stdout; exit 1 if one is an error. The objects
/// are read and checked one file at a time (only that file's objects are held), the files'
/// sizes bounded in all before any is read.
fn check_status(args: &CheckStatusArgs) -> ExitCode {
    use crate::source::diagnostic::{read_input, read_limited, within_total};
    use crate::status_check;
    let (stdin, paths): (Vec<&PathBuf>, Vec<&PathBuf>) =
        args.paths.iter().partition(|p| p.as_os_str() == "-");
    let paths: Vec<PathBuf> = paths.into_iter().cloned().collect();
    let mut text = String::new();
    let mut failed = false;
    let mut problems = crate::source::diagnostic::Diagnostics::default();
    let mut run = || -> Result<(), String> {
        let files = status_check::object_files(&paths).map_err(|d| format!("{d}\n"))?;
        let sized = args.crds.iter().chain(&files).map(|path| {
            (
                path.as_path(),
                std::fs::metadata(path).map_or(0, |m| m.len()),
            )
        });
        within_total(sized, 0).map_err(|d| format!("{d}\n"))?;
        let mut crds = Vec::new();
        let mut read_bytes = 0;
        for file in &args.crds {
            let text = read_input(file).map_err(|d| format!("{d}\n"))?;
            read_bytes += text.len() as u64;
            crds.extend(status_check::read_crds(file, &text).map_err(|d| format!("{d}\n"))?);
        }
        let checks = status_check::Checks::new(&crds);
        let mut check = |file: &std::path::Path, input: &str| -> Result<(), String> {
            let objects = status_check::read_objects(file, input).map_err(|d| format!("{d}\n"))?;
            match checks.check(&objects) {
                Ok(found) => {
                    for (object, violations) in objects.iter().zip(&found) {
                        for violation in violations {
                            failed |= violation.level == kondition::check::Level::Fail;
                            text.push_str(&format!(
                                "{}: {}: {violation}\n",
                                object.file.display(),
                                object.name()
                            ));
                        }
                    }
                }
                Err(found) => problems.0.extend(found.0),
            }
            Ok(())
        };
        if !stdin.is_empty() {
            let input =
                read_limited(std::io::stdin().lock()).map_err(|e| format!("<stdin>: {e}\n"))?;
            let stdin_path = std::path::Path::new("<stdin>");
            within_total([(stdin_path, read_bytes + input.len() as u64)], 0)
                .map_err(|d| format!("{d}\n"))?;
            read_bytes += input.len() as u64;
            check(stdin_path, &input)?;
        }
        // Stdin's bytes count with the files'.
        within_total(
            files.iter().map(|path| {
                (
                    path.as_path(),
                    std::fs::metadata(path).map_or(0, |m| m.len()),
                )
            }),
            read_bytes,
        )
        .map_err(|d| format!("{d}\n"))?;
        for file in &files {
            let input = read_input(file).map_err(|d| format!("{d}\n"))?;
            check(file, &input)?;
        }
        Ok(())
    };
    if let Err(message) = run() {
        return finish(Err(message));
    }
    if !problems.is_empty() {
        return finish(Err(problems.to_string()));
    }
    match print_bytes(text.as_bytes()) {
        code if code != ExitCode::SUCCESS => code,
        _ if failed => ExitCode::from(VIOLATIONS),
        success => success,
    }
}

fn report_writes(
    result: &std::io::Result<Vec<PathBuf>>,
    out: &std::path::Path,
) -> Result<(), String> {
    match result {
        Ok(written) => {
            for path in written {
                eprintln!("wrote {}", path.display());
            }
            Ok(())
        }
        Err(error) => Err(output_error(
            &format!("cannot write into {}: ", out.display()),
            error,
        )),
    }
}

/// An output error as printed: a file or folder of the output kondition will not touch (a
/// link, a FIFO, a device) is `path: message` as it is; another failure after `context`.
fn output_error(context: &str, error: &std::io::Error) -> String {
    if error.kind() == std::io::ErrorKind::InvalidInput {
        format!("{error}\n")
    } else {
        format!("{context}{error}\n")
    }
}

/// The `kondition generate` that writes what this `kondition check` compares with: this
/// run's arguments after `check` as given (its inputs, `--out` and every option), quoted for
/// a POSIX shell, so that the command runs as printed from the same folder. (An argument
/// that is not UTF-8 is shown with U+FFFD in its place.)
fn generate_command() -> String {
    let mut words = vec!["kondition".to_owned(), "generate".to_owned()];
    words.extend(
        std::env::args_os()
            .skip(1)
            .skip_while(|arg| arg != "check")
            .skip(1)
            .map(|arg| shell_word(&arg.to_string_lossy())),
    );
    words.join(" ")
}

/// `word` as one word of a POSIX shell: as it is when it holds only characters no shell
/// treats specially, else in single quotes.
fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=,:@%+".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// What a command says when it is given no inputs and there is no `schemas/` folder to read
/// by default (issue 37, item 10: it said only `schemas: no such file or folder`).
fn no_inputs(command: &str) -> String {
    format!(
        "kondition {command}: no inputs given, and no `schemas/` folder here to read by default: \
         name schema files, CRD files or folders of them, as in `kondition {command} crds/ widget.yaml`\n"
    )
}

/// The model of the files and folders in `paths` (schemas/ when empty) for `command`.
fn load(
    command: &str,
    paths: &[PathBuf],
    profile_dir: Option<&PathBuf>,
    kinds: &[String],
    options: &crate::crd::Options,
) -> Result<crate::model::Model, String> {
    pipeline(
        command,
        paths,
        profile_dir,
        kinds,
        options,
        Derives::default(),
    )?
    .load(&mut PrintNotes)
    .map_err(message)
}

/// The run the arguments ask for; without inputs, `schemas/` if it exists.
fn pipeline(
    command: &str,
    paths: &[PathBuf],
    profile_dir: Option<&PathBuf>,
    kinds: &[String],
    options: &crate::crd::Options,
    without_derives: Derives,
) -> Result<Pipeline, String> {
    let inputs = if paths.is_empty() {
        let default = PathBuf::from("schemas");
        if !default.exists() {
            return Err(no_inputs(command));
        }
        vec![default]
    } else {
        paths.to_vec()
    };
    Ok(Pipeline {
        profile_dirs: profile_dir.into_iter().cloned().collect(),
        inputs,
        selection: crate::select::Selection {
            kinds: kinds.to_vec(),
            versions: Vec::new(),
            caller: crate::caller::Caller::CommandLine,
        },
        crd_options: options.clone(),
        without_derives,
    })
}

/// Notes on the inputs go to stderr as soon as the inputs are read.
struct PrintNotes;

impl Observer for PrintNotes {
    fn note(
        &mut self,
        note: &crate::source::diagnostic::Diagnostic,
    ) -> Result<(), crate::pipeline::Error> {
        eprintln!("{note}");
        Ok(())
    }
}

/// A failed run's message, as printed: every problem of the inputs, or one line.
fn message(error: crate::pipeline::Error) -> String {
    match error {
        crate::pipeline::Error::Input(diagnostics) => diagnostics.to_string(),
        other => format!("{other}\n"),
    }
}

fn run(args: &GenerateArgs, check: bool) -> ExitCode {
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("generated/src"));
    let command = if check { "check" } else { "generate" };
    let files = match generate(command, args, &out) {
        Ok(files) => files,
        Err(message) => {
            eprint!("{message}");
            return ExitCode::from(BAD_INPUT);
        }
    };
    if check {
        match output::diff_tree(&out, &files) {
            Ok(diff) if diff.is_empty() => ExitCode::SUCCESS,
            Ok(diff) => {
                print!("{diff}");
                eprintln!(
                    "kondition: {} is not up to date; run `{}`",
                    out.display(),
                    generate_command()
                );
                ExitCode::from(DRIFT)
            }
            Err(error) => {
                eprint!("{}", output_error(&format!("{}: ", out.display()), &error));
                ExitCode::from(BAD_INPUT)
            }
        }
    } else {
        match output::write_tree(&out, &files) {
            Ok(report) => {
                for path in &report.written {
                    eprintln!("wrote {}", path.display());
                }
                for path in &report.removed {
                    eprintln!("removed {}", path.display());
                }
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprint!("{}", output_error("cannot write the output: ", &error));
                ExitCode::from(BAD_INPUT)
            }
        }
    }
}

/// Everything `generate` would write into `out`, or every problem found (as printed lines).
fn generate(
    command: &str,
    args: &GenerateArgs,
    out: &std::path::Path,
) -> Result<Vec<OutputFile>, String> {
    let pipeline = pipeline(
        command,
        &args.paths,
        args.profiles.as_ref(),
        &args.kinds,
        &args.crd_options(),
        args.without_derive.iter().copied().collect(),
    )?;
    // The headers name the inputs from the output folder: the same output whatever the
    // working directory `generate` or `check` runs in.
    let layout = Layout::Tree(emit::Options {
        inputs_relative_to: Some(out.to_owned()),
    });
    let (model, files) = pipeline
        .generate(&layout, &mut PrintNotes)
        .map_err(message)?;
    // The process ends right after writing: freeing the model node by node took a twentieth
    // of a run over the corpus (BENCHMARKS.md), and the system takes it back at exit anyway.
    std::mem::forget(model);
    Ok(files)
}
