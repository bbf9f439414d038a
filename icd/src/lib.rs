//! libclift.so
