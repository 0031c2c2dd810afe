//! `floor-serde-yaml FILE...`: every document of every file read into a `serde_yaml::Value`,
//! one file after the other in one process, and nothing made of them: the parse floor as
//! issue 28 measured it. `parse_floor tree` (generator/examples) is the stricter floor,
//! kondition's own reader.

use std::process::ExitCode;

use serde::Deserialize;

fn main() -> ExitCode {
    let mut documents = 0usize;
    for path in std::env::args().skip(1) {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) => {
                eprintln!("floor-serde-yaml: {path}: {error}");
                return ExitCode::FAILURE;
            }
        };
        for document in serde_yaml::Deserializer::from_str(&text) {
            match serde_yaml::Value::deserialize(document) {
                Ok(value) => documents += usize::from(!value.is_null()),
                Err(error) => {
                    eprintln!("floor-serde-yaml: {path}: {error}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    println!("{documents} documents");
    ExitCode::SUCCESS
}
