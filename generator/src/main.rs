//! `kondition`: Rust CRD types with kondition's standard status, from schema files or CRDs
//! (`kondition --help`). The command line is the library's [`kondition_gen::cli`].

fn main() -> std::process::ExitCode {
    kondition_gen::cli::main()
}
