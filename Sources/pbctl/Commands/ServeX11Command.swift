/// `pbctl __serve-x11`: the spawned X11 selection owner (``serveCommand(backend:)``).
let serveX11Command = serveCommand(backend: .x11)
