/work/main/benches/floor/target/release/deps/toolcheck_bench_floor-4f3d93f355dff831.d: src/main.rs

/work/main/benches/floor/target/release/deps/toolcheck_bench_floor-4f3d93f355dff831: src/main.rs

src/main.rs:
