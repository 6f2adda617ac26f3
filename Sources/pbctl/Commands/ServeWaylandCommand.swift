/// `pbctl __serve-wayland`: the spawned Wayland selection owner (``serveCommand(backend:)``).
let serveWaylandCommand = serveCommand(backend: .wayland)
