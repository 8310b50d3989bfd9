//! A loopback TCP proxy between the console and an agent: forwards bytes both ways and, on
//! command, cuts every connection open at that moment while it keeps accepting new ones (a
//! network drop in the middle of a stream).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::broadcast;

pub struct Proxy {
    /// The proxy's origin (`http://127.0.0.1:<port>`).
    pub origin: String,
    cut: broadcast::Sender<()>,
    accepted: Arc<AtomicUsize>,
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
            accepted: Arc::new(AtomicUsize::new(0)),
            task: tokio::spawn(async {}),
        };
        (proxy, listener)
    }

    /// Accepts connections on `listener` and forwards each to `127.0.0.1:<upstream>`.
    pub fn forward_to(&mut self, listener: TcpListener, upstream: u16) {
        let cut = self.cut.clone();
        let accepted = self.accepted.clone();
        self.task = tokio::spawn(async move {
            while let Ok((inbound, _)) = listener.accept().await {
                accepted.fetch_add(1, Ordering::SeqCst);
                // Subscribed at accept time: a cut ends the connections open then, not later ones.
                let mut cut = cut.subscribe();
                tokio::spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect(("127.0.0.1", upstream)).await else {
                        return;
                    };
                    let mut inbound = inbound;
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
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
