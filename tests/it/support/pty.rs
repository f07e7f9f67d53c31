//! Pseudo-terminals, for what multiversi does when its output is a terminal.

use std::fs::File;
use std::os::fd::{FromRawFd, OwnedFd};

/// A pseudo-terminal pair of `rows` rows and 140 columns: the test holds the master, the child
/// gets the slave.
pub fn open_pty(rows: u16) -> (File, OwnedFd) {
    let (mut master, mut slave) = (-1, -1);
    let size = libc::winsize {
        ws_row: rows,
        ws_col: 140,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two fds; the name and termios pointers may be null.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // Not inherited by the children other tests start meanwhile: a terminal held open by some
    // other process would never see its end, nor its replay a hangup.
    for fd in [master, slave] {
        // SAFETY: setting a flag on a descriptor we own.
        assert_eq!(
            unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) },
            0
        );
    }
    // SAFETY: both fds were just opened for us and are owned from here on.
    unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}
