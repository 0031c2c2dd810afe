//! Generates the crate's types from `schemas/` into `$OUT_DIR/kondition.rs`.

fn main() {
    if let Err(error) = kondition_gen::Builder::new()
        .schemas(["schemas"])
        .generate()
    {
        // Each problem is printed as `path:line:col: message`.
        eprintln!("{error}");
        std::process::exit(1);
    }
}
