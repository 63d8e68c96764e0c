//! The system calls the router makes: AF_PACKET sockets (packet(7)), the monotonic
//! clock (clock_gettime(2), CLOCK_MONOTONIC), ppoll(2), signals (sigaction(2)) and the
//! ethtool ioctl that turns a veth's offloads off (SIOCETHTOOL, linux/ethtool.h).
//!
//! Offloads: with checksum offload and TSO/GSO on, a veth hands a packet socket
//! 64 KB GSO frames and frames whose TCP checksum is only partial; with them off the
//! sending host's kernel segments and checksums every packet, and the router sees the
//! frames a wire would carry.

use std::ffi::CString;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// Now on CLOCK_MONOTONIC, ns (the clock Python's time.monotonic_ns() reads on Linux).
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid timespec; CLOCK_MONOTONIC always exists on Linux
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn check(rc: libc::c_int, what: &str) -> io::Result<libc::c_int> {
    if rc < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("{what}: {e}")));
    }
    Ok(rc)
}

/// The interface index of `name` (if_nametoindex(3)).
pub fn ifindex(name: &str) -> io::Result<i32> {
    let c = CString::new(name).map_err(|_| io::Error::other("interface name with a NUL"))?;
    // SAFETY: c is a valid C string
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        return Err(io::Error::new(io::ErrorKind::NotFound, format!("no interface {name}")));
    }
    Ok(i as i32)
}

/// Now on CLOCK_REALTIME, ns (the clock of the kernel's receive timestamps).
pub fn realtime_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid timespec
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The CLOCK_MONOTONIC time of a kernel receive stamp on CLOCK_REALTIME: now on the
/// monotonic clock less the stamp's age (the age is microseconds, so only a step of the
/// realtime clock between the stamp and now would be an error; never in the future).
pub fn mono_of_realtime(stamp: u64) -> u64 {
    let (mono, real) = (now_ns(), realtime_ns());
    mono - real.saturating_sub(stamp).min(mono)
}

/// A non-blocking AF_PACKET SOCK_RAW socket bound to one interface, all protocols,
/// that does not see its own outgoing frames (PACKET_IGNORE_OUTGOING, Linux 4.20) and
/// bypasses the interface's qdisc on send (PACKET_QDISC_BYPASS; a veth has none).
pub struct PacketSocket {
    pub fd: libc::c_int,
}

const ETH_P_ALL_BE: u16 = (libc::ETH_P_ALL as u16).to_be();

impl PacketSocket {
    pub fn open(ifname: &str) -> io::Result<PacketSocket> {
        let idx = ifindex(ifname)?;
        // SAFETY: plain socket(2); the fd is owned by the returned value
        let fd = check(
            unsafe {
                libc::socket(
                    libc::AF_PACKET,
                    libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                    ETH_P_ALL_BE as libc::c_int,
                )
            },
            "socket(AF_PACKET)",
        )?;
        let s = PacketSocket { fd };
        s.setopt(libc::SOL_PACKET, libc::PACKET_IGNORE_OUTGOING, 1, "PACKET_IGNORE_OUTGOING")?;
        s.setopt(libc::SOL_PACKET, libc::PACKET_QDISC_BYPASS, 1, "PACKET_QDISC_BYPASS")?;
        // a burst of a whole window must not overflow the socket while the router works
        s.setopt(libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, 16 << 20, "SO_RCVBUFFORCE")?;
        s.setopt(libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, 4 << 20, "SO_SNDBUFFORCE")?;
        // the kernel's receive time of each frame (socket(7)): a frame's arrival is when
        // the kernel took it, not when this thread woke up to read it
        s.setopt(libc::SOL_SOCKET, libc::SO_TIMESTAMPNS, 1, "SO_TIMESTAMPNS")?;
        // SAFETY: sockaddr_ll is plain data; zeroed is a valid value
        let mut sa: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sa.sll_family = libc::AF_PACKET as u16;
        sa.sll_protocol = ETH_P_ALL_BE;
        sa.sll_ifindex = idx;
        // SAFETY: sa is a valid sockaddr_ll of the size given
        check(
            unsafe {
                libc::bind(
                    fd,
                    &sa as *const libc::sockaddr_ll as *const libc::sockaddr,
                    std::mem::size_of::<libc::sockaddr_ll>() as u32,
                )
            },
            "bind(AF_PACKET)",
        )?;
        Ok(s)
    }

    fn setopt(&self, level: i32, name: i32, v: i32, what: &str) -> io::Result<()> {
        // SAFETY: v outlives the call; its size is given
        check(
            unsafe {
                libc::setsockopt(
                    self.fd,
                    level,
                    name,
                    &v as *const i32 as *const libc::c_void,
                    std::mem::size_of::<i32>() as u32,
                )
            },
            what,
        )
        .map(|_| ())
    }

    /// One frame into `buf`: Some((its whole length, which may exceed buf: MSG_TRUNC;
    /// the kernel's receive time on CLOCK_REALTIME, ns, if it gave one)), None when no
    /// frame is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<(usize, Option<u64>)>> {
        let mut iov = libc::iovec { iov_base: buf.as_mut_ptr() as *mut libc::c_void, iov_len: buf.len() };
        let mut ctrl = [0u64; 8];
        // SAFETY: msghdr is plain data; zeroed is valid
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = ctrl.as_mut_ptr() as *mut libc::c_void;
        msg.msg_controllen = std::mem::size_of_val(&ctrl);
        // SAFETY: msg points at buf and ctrl, valid for the call
        let n = unsafe { libc::recvmsg(self.fd, &mut msg, libc::MSG_TRUNC) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::EAGAIN) | Some(libc::EINTR) => Ok(None),
                _ => Err(e),
            };
        }
        let mut stamp = None;
        // SAFETY: the CMSG_* walk stays inside msg's control buffer
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(&msg);
            while !c.is_null() {
                if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                    let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                    stamp = Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
                }
                c = libc::CMSG_NXTHDR(&msg, c);
            }
        }
        Ok(Some((n as usize, stamp)))
    }

    /// Sends one frame; false if the kernel refused it (ENOBUFS, EAGAIN).
    pub fn send(&self, frame: &[u8]) -> bool {
        // SAFETY: frame is valid for frame.len() bytes
        let n = unsafe { libc::send(self.fd, frame.as_ptr() as *const libc::c_void, frame.len(), 0) };
        n == frame.len() as isize
    }
}

impl Drop for PacketSocket {
    fn drop(&mut self) {
        // SAFETY: fd is owned by self
        unsafe { libc::close(self.fd) };
    }
}

/// Waits until a socket is readable or `timeout_ns` has passed (None: until a
/// signal). Interrupted by a signal: returns as a timeout.
pub fn wait_readable(fds: &mut [libc::pollfd], timeout_ns: Option<u64>) {
    let ts = timeout_ns.map(|t| libc::timespec {
        tv_sec: (t / 1_000_000_000) as libc::time_t,
        tv_nsec: (t % 1_000_000_000) as libc::c_long,
    });
    let tsp = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: fds and tsp are valid for the call
    unsafe { libc::ppoll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, tsp, std::ptr::null()) };
}

/// Timer slack 1 ns (prctl(2) PR_SET_TIMERSLACK): a sleep ends when asked, not up to
/// 50 us later.
pub fn tight_timers() {
    // SAFETY: prctl with integer arguments
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
}

/// Real-time scheduling (sched(7), SCHED_FIFO at `priority`): the router runs the
/// moment its timer or a frame wakes it, ahead of the compilers and generators sharing
/// the cores, instead of up to milliseconds later. The kernel's RT throttling
/// (sched_rt_runtime_us) still leaves the others 5 % of each core. Returns the error if
/// the process may not (not root).
pub fn realtime(priority: i32) -> io::Result<()> {
    let p = libc::sched_param { sched_priority: priority };
    // SAFETY: p is a valid sched_param; 0 is this process
    check(unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) }, "sched_setscheduler(SCHED_FIFO)").map(|_| ())
}

pub static STOP: AtomicBool = AtomicBool::new(false);
pub static RESET: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}
extern "C" fn on_reset(_: libc::c_int) {
    RESET.store(true, Ordering::SeqCst);
}

/// SIGINT and SIGTERM stop the router (it then writes its counters); SIGUSR1 starts
/// the counters' window afresh. No SA_RESTART: ppoll returns at once.
pub fn install_signal_handlers() {
    let stop = on_stop as extern "C" fn(libc::c_int) as usize;
    let reset = on_reset as extern "C" fn(libc::c_int) as usize;
    for (sig, h) in [(libc::SIGINT, stop), (libc::SIGTERM, stop), (libc::SIGUSR1, reset)] {
        // SAFETY: a zeroed sigaction with a handler that only stores an atomic
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = h;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

// linux/ethtool.h (legacy per-feature commands) and linux/sockios.h
const SIOCETHTOOL: libc::c_ulong = 0x8946;
const ETHTOOL_STXCSUM: u32 = 0x17;
const ETHTOOL_SSG: u32 = 0x19;
const ETHTOOL_STSO: u32 = 0x1f;
const ETHTOOL_SGSO: u32 = 0x24;
const ETHTOOL_SGRO: u32 = 0x2c;

#[repr(C)]
struct EthtoolValue {
    cmd: u32,
    data: u32,
}

#[repr(C)]
struct IfreqData {
    name: [libc::c_char; libc::IFNAMSIZ],
    data: *mut libc::c_void,
    _pad: [u8; 16],
}

/// Turns TSO, GSO, GRO, scatter-gather and transmit checksum offload off on `ifname`
/// (what `ethtool -K IF tso off gso off gro off sg off tx off` does).
pub fn offloads_off(ifname: &str) -> io::Result<()> {
    if ifname.len() >= libc::IFNAMSIZ {
        return Err(io::Error::other(format!("interface name too long: {ifname}")));
    }
    // SAFETY: an AF_INET datagram socket, only for the ioctl
    let fd = check(unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) }, "socket")?;
    let mut res = Ok(());
    for (cmd, what) in [
        (ETHTOOL_STSO, "tso"),
        (ETHTOOL_SGSO, "gso"),
        (ETHTOOL_SGRO, "gro"),
        (ETHTOOL_SSG, "sg"),
        (ETHTOOL_STXCSUM, "tx checksum"),
    ] {
        let mut v = EthtoolValue { cmd, data: 0 };
        let mut ifr = IfreqData {
            name: [0; libc::IFNAMSIZ],
            data: &mut v as *mut EthtoolValue as *mut libc::c_void,
            _pad: [0; 16],
        };
        for (d, s) in ifr.name.iter_mut().zip(ifname.bytes()) {
            *d = s as libc::c_char;
        }
        // SAFETY: ifr points at a valid ethtool_value for the duration of the call
        let rc = unsafe { libc::ioctl(fd, SIOCETHTOOL as _, &mut ifr as *mut IfreqData) };
        if rc < 0 {
            res = Err(io::Error::other(format!("{ifname}: {what} off: {}", io::Error::last_os_error())));
            break;
        }
    }
    // SAFETY: fd is ours
    unsafe { libc::close(fd) };
    res
}
