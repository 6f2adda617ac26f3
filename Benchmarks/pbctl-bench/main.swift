print("pbctl-bench: no benchmarks yet")
