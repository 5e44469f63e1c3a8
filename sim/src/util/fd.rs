//! File descriptor helpers, with no knowledge of what the descriptor is for.

use std::io;
use std::os::fd::AsFd;

use rustix::fs::{fcntl_getfl, fcntl_setfl, OFlags};

/// Make our end of a pipe non-blocking, so that no read or write can hang the harness.
pub fn set_nonblocking(fd: impl AsFd) -> io::Result<()> {
    let flags = fcntl_getfl(&fd)?;
    fcntl_setfl(&fd, flags | OFlags::NONBLOCK)?;
    Ok(())
}
