//! A loopback TCP proxy between the console and a peer (an agent, PostgreSQL): forwards bytes
//! both ways and, on command, cuts every connection open at that moment while it keeps
//! accepting new ones (a network drop in the middle of a stream), freezes the event streams open
//! at that moment (open, silent: a stream that dies without closing; other connections go on),
//! or goes down altogether (every connection cut, every new
//! one closed at once) until it is brought up again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::broadcast;

pub struct Proxy {
    /// The proxy's origin (`http://127.0.0.1:<port>`).
    pub origin: String,
    cut: broadcast::Sender<()>,
    frozen: Arc<AtomicBool>,
    accepted: Arc<AtomicUsize>,
    down: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// Binds a loopback port; forwarding starts with [`Proxy::forward_to`].
    pub async fn bind() -> (Proxy, TcpListener) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind the proxy");
        let origin = format!("http://{}", listener.local_addr().expect("proxy address"));
        let (cut, _) = broadcast::channel(4);
        let proxy = Proxy {
            origin,
            cut,
            frozen: Arc::new(AtomicBool::new(false)),
            accepted: Arc::new(AtomicUsize::new(0)),
            down: Arc::new(AtomicBool::new(false)),
            task: tokio::spawn(async {}),
        };
        (proxy, listener)
    }

    /// Accepts connections on `listener` and forwards each to `127.0.0.1:<upstream>`.
    pub fn forward_to(&mut self, listener: TcpListener, upstream: u16) {
        let cut = self.cut.clone();
        let frozen = self.frozen.clone();
        let accepted = self.accepted.clone();
        let down = self.down.clone();
        self.task = tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                if down.load(Ordering::SeqCst) {
                    // Down: the connection is closed as soon as it is made.
                    drop(inbound);
                    continue;
                }
                accepted.fetch_add(1, Ordering::SeqCst);
                // Subscribed at accept time: a cut ends the connections open then, not later ones.
                let mut cut = cut.subscribe();
                let frozen = frozen.clone();
                tokio::spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect(("127.0.0.1", upstream)).await else {
                        return;
                    };
                    let mut inbound = inbound;
                    tokio::select! {
                        () = forward(&mut inbound, &mut outbound, &frozen) => {}
                        _ = cut.recv() => {}
                    }
                    // Both sockets drop here: the console and the agent each see the connection end.
                });
            }
        });
    }

    /// Cuts every connection open now; returns how many were accepted so far.
    pub fn cut(&self) -> usize {
        let _ = self.cut.send(());
        self.accepted.load(Ordering::SeqCst)
    }

    /// Freezes the event streams (`text/event-stream` answers) open now: they stay open and
    /// carry nothing more (until a cut); every other exchange, and every later stream, goes on.
    pub fn freeze(&self) {
        self.frozen.store(true, Ordering::SeqCst);
    }

    /// Goes down: every open connection is cut and new ones are closed at once, until
    /// [`Proxy::up`].
    pub fn down(&self) {
        self.down.store(true, Ordering::SeqCst);
        let _ = self.cut.send(());
    }

    /// Forwards new connections again.
    pub fn up(&self) {
        self.down.store(false, Ordering::SeqCst);
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Copies both ways until either side closes. Once `frozen` is set, a connection whose answer
/// was an event stream (and that was open then) stops carrying anything, and stays open.
async fn forward(inbound: &mut TcpStream, outbound: &mut TcpStream, frozen: &AtomicBool) {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let streams_before_freeze = !frozen.load(Ordering::SeqCst);
    let (mut from_client, mut to_agent) = (inbound.split(), outbound.split());
    let up = tokio::io::copy(&mut from_client.0, &mut to_agent.1);
    let down = async {
        let mut buffer = vec![0u8; 16 * 1024];
        let mut streaming = false;
        loop {
            let Ok(read) = to_agent.0.read(&mut buffer).await else {
                return;
            };
            if read == 0 {
                return;
            }
            streaming |= buffer[..read]
                .windows(17)
                .any(|w| w.eq_ignore_ascii_case(b"text/event-stream"));
            if streaming && streams_before_freeze && frozen.load(Ordering::SeqCst) {
                return std::future::pending::<()>().await;
            }
            if from_client.1.write_all(&buffer[..read]).await.is_err() {
                return;
            }
        }
    };
    tokio::select! {
        _ = up => {}
        () = down => {}
    }
}
