int host_function(void) { return 42; }
