//! The parse floor of `kondition generate`, and where its time goes (bench/run.sh).
//!
//! ```text
//! parse_floor events FILE...   saphyr-parser's event stream, nothing kept
//! parse_floor tree FILE...     kondition's YAML reader: every file into a tree of values
//! parse_floor stages FILE...   the whole of `generate` in memory, timed stage by stage
//! ```
//!
//! `tree` is the floor every generator pays: reading the YAML into values, before anything
//! is made of them. `events` is the scanner alone, for scale. Each reads the files one after
//! the other in one process, as `kondition generate` does.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use kondition_gen::emit;
use kondition_gen::profile::Profiles;
use kondition_gen::source::yaml;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_default();
    let files: Vec<PathBuf> = args.map(PathBuf::from).collect();
    let result = match mode.as_str() {
        "events" => events(&files),
        "tree" => tree(&files),
        "stages" => stages(&files),
        _ => Err("usage: parse_floor events|tree|stages FILE...".to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{message}");
            ExitCode::FAILURE
        }
    }
}

fn read(path: &PathBuf) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn events(files: &[PathBuf]) -> Result<(), String> {
    let mut count = 0usize;
    for path in files {
        let text = read(path)?;
        for event in saphyr_parser::Parser::new_from_str(&text) {
            event.map_err(|e| format!("{}: {e}", path.display()))?;
            count += 1;
        }
    }
    eprintln!("{count} events");
    Ok(())
}

fn tree(files: &[PathBuf]) -> Result<(), String> {
    let mut documents = 0usize;
    for path in files {
        let text = read(path)?;
        let parsed =
            yaml::parse(&text).map_err(|e| format!("{}:{}: {e:?}", path.display(), e.pos))?;
        documents += parsed.len();
        // Dropped here, as the generator drops its trees after reading them.
        std::hint::black_box(parsed);
    }
    eprintln!("{documents} documents");
    Ok(())
}

/// `generate` without writing files: the same calls as the binary, each stage timed.
fn stages(files: &[PathBuf]) -> Result<(), String> {
    let mut timings: Vec<(&str, Duration)> = Vec::new();
    let start = Instant::now();
    let mut bytes = 0usize;
    for path in files {
        let text = read(path)?;
        bytes += text.len();
        std::hint::black_box(yaml::parse(&text).map_err(|e| format!("{e:?}"))?);
    }
    timings.push((
        "read + parse the YAML (alone, for comparison)",
        start.elapsed(),
    ));

    let start = Instant::now();
    let model = kondition_gen::load::load(files, &Profiles::embedded(), &Default::default())
        .map_err(|d| d.to_string())?;
    timings.push(("load: parse, then read into the model", start.elapsed()));

    let start = Instant::now();
    let mut lines = 0usize;
    let plans = kondition_gen::analysis::Plans::new(&model, Default::default());
    for file in &model.files {
        lines += emit::rust::file_module(
            file,
            &file.path.display().to_string(),
            0,
            &plans.share,
            &plans.derives,
            "",
        )
        .map_err(|e| e.to_string())?
        .lines()
        .count();
    }
    timings.push(("emit Rust, file by file", start.elapsed()));

    let start = Instant::now();
    let plans = kondition_gen::analysis::Plans::new(&model, Default::default());
    let out = emit::rust_tree(&model, &plans, &Default::default()).map_err(|e| e.to_string())?;
    timings.push((
        "analysis and rust_tree: all output files, as generate does",
        start.elapsed(),
    ));

    println!(
        "{} files, {:.1} MB of YAML, {} output files, {lines} lines",
        files.len(),
        bytes as f64 / 1e6,
        out.len()
    );
    for (stage, time) in timings {
        println!("{:>9.1} ms  {stage}", time.as_secs_f64() * 1e3);
    }
    Ok(())
}
