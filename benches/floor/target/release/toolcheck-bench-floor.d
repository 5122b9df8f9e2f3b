/work/main/benches/floor/target/release/toolcheck-bench-floor: /work/main/benches/floor/src/main.rs
