//! cts harness
