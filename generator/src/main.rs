//! `kondition`: Rust CRD types with kondition's standard status, from schema files.
//!
//! Exit codes: 0 success, 1 drift (`check`), 2 bad input or usage.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use kondition_gen::emit::{self, OutputFile};
use kondition_gen::profile::Profiles;
use kondition_gen::{inputs, output};

/// Rust CRD types with kondition's standard status, from schema files.
#[derive(Parser)]
#[command(name = "kondition", version, about)]
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
    /// Print the JSON Schema of the schema format.
    Schema,
}

#[derive(clap::Args)]
struct GenerateArgs {
    /// Schema files or folders (default: schemas/).
    paths: Vec<PathBuf>,
    /// The output folder; DIR/lib.rs is the root module (default: generated/src/).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// A folder of additional status profiles.
    #[arg(long, value_name = "DIR")]
    profiles: Option<PathBuf>,
}

const DRIFT: u8 = 1;
const BAD_INPUT: u8 = 2;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { BAD_INPUT } else { 0 });
        }
    };
    match cli.command {
        Command::Schema => {
            print!("{}", kondition_gen::FORMAT_JSON_SCHEMA);
            ExitCode::SUCCESS
        }
        Command::Generate(args) => run(&args, false),
        Command::Check(args) => run(&args, true),
    }
}

fn run(args: &GenerateArgs, check: bool) -> ExitCode {
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("generated/src"));
    let files = match generate(args) {
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
                    "kondition: {} is not up to date; run `kondition generate`",
                    out.display()
                );
                ExitCode::from(DRIFT)
            }
            Err(error) => {
                eprintln!("{}: {error}", out.display());
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
                eprintln!("{}: {error}", out.display());
                ExitCode::from(BAD_INPUT)
            }
        }
    }
}

/// Everything `generate` would write, or every problem found (as printed lines).
fn generate(args: &GenerateArgs) -> Result<Vec<OutputFile>, String> {
    let mut profiles = Profiles::embedded();
    if let Some(dir) = &args.profiles {
        profiles.add_dir(dir).map_err(|d| d.to_string())?;
    }
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from("schemas")]
    } else {
        args.paths.clone()
    };
    let files = inputs::schema_files(&paths).map_err(|e| format!("kondition: {e}\n"))?;
    let model = kondition_gen::load(&files, &profiles).map_err(|d| d.to_string())?;
    emit::rust_tree(&model).map_err(|e| format!("kondition: {e}\n"))
}
