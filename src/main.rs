fn main() {
    std::process::exit(multiversi::cli::main());
}
