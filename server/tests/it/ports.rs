//! Loopback ports for the tests' own processes. A port found free is free when chosen, not
//! when a child binds it: another test's process may take it first (the console refuses
//! `--port 0`). So a child is ready only once it holds its port itself ([`listens`]), and one
//! that found its port taken is started again on another (`processes::serve`, the SDK launcher).

/// A loopback port nobody listened on a moment ago (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// The loopback ports process `pid` listens on (Linux: the listening sockets of
/// `/proc/net/tcp` whose inode is among the process's open files).
pub fn listening_ports(pid: u32) -> Vec<u16> {
    let Ok(table) = std::fs::read_to_string("/proc/net/tcp") else {
        return Vec::new();
    };
    let Ok(files) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    let held: Vec<String> = files
        .flatten()
        .filter_map(|file| std::fs::read_link(file.path()).ok())
        .filter_map(|target| target.to_str().map(str::to_owned))
        .collect();
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            // Columns: slot, local address, remote address, state (0A: listening), …, inode.
            let columns: Vec<&str> = line.split_whitespace().collect();
            let (address, port) = columns.get(1)?.split_once(':')?;
            let listening = address == "0100007F" && columns.get(3) == Some(&"0A");
            let socket = format!("socket:[{}]", columns.get(9)?);
            (listening && held.contains(&socket)).then(|| u16::from_str_radix(port, 16).ok())?
        })
        .collect()
}

/// Whether a child started on a port got it.
pub enum Bound {
    Yes,
    /// The child exited because another process had its port.
    PortTaken,
}

/// Runs `attempt` on a free port, and again on another while the child it starts finds its port
/// taken ([`Bound::PortTaken`]); five times at most. `what` names the child in the failure.
pub async fn on_a_free_port<T>(what: &str, mut attempt: impl AsyncFnMut(u16) -> (Bound, T)) -> T {
    const ATTEMPTS: usize = 5;
    for _ in 0..ATTEMPTS {
        if let (Bound::Yes, started) = attempt(free_port()).await {
            return started;
        }
    }
    panic!("{ATTEMPTS} free ports in a row were taken before {what} could bind them");
}

/// Whether process `pid` holds the socket listening on 127.0.0.1:`port`.
pub fn listens(pid: u32, port: u16) -> bool {
    listening_ports(pid).contains(&port)
}

/// `listens` tells this process's listening socket from a port another process holds.
#[test]
fn listens_finds_the_process_that_holds_the_port() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    assert!(listens(std::process::id(), port));
    let child = std::process::Command::new("sleep").arg("5").spawn();
    let mut child = child.expect("a process of our own");
    assert!(
        !listens(child.id(), port),
        "a process that does not hold the socket"
    );
    assert!(listening_ports(child.id()).is_empty());
    let _ = child.kill();
    let _ = child.wait();
    drop(listener);
    assert!(!listens(std::process::id(), port), "a closed socket");
}
