//! `builder_run OUT_DIR FILE...`: what an operator's build script runs, as a program of its
//! own: `kondition_gen::Builder` generating `FILE...` into `OUT_DIR` (bench/one_core.sh).
//!
//! A build script is a program with the system allocator and whatever optimization its
//! profile's `build-override` gives it; this one is built like the benchmark asks (release:
//! as `[profile.release.build-override] opt-level = 3` would build a build script).

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(out_dir) = args.next() else {
        eprintln!("usage: builder_run OUT_DIR FILE...");
        return ExitCode::FAILURE;
    };
    // cargo's instructions (`cargo:rerun-if-changed`) go to stdout, as in a build script.
    match kondition_gen::Builder::new()
        .schemas(args)
        .out_dir(out_dir)
        .generate()
    {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}
