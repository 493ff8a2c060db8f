"""Network commands of a simulated node: ibstat, ibv_devinfo, show_gids, ibdev2netdev, ip."""

from __future__ import annotations

from xyclaw.sim.context import Command, Ctx


def ibstat(ctx: Ctx) -> int:
    net = ctx.machine.net
    args = [a for a in ctx.args if not a.startswith("-")]
    if "-l" in ctx.args or "--list_of_cas" in ctx.args:
        ctx.out("".join(f"{n.name}\n" for n in net.nics))
        return 0
    if args and net.nic(args[0]) is None:
        ctx.err(
            f"ibpanic: [{ctx.proc.pid if ctx.proc else 0}] main: '{args[0]}' IB device "
            "can't be found: No such file or directory\n"
        )
        return 255
    ctx.out(net.ibstat(args[:1] or None))
    return 0


def ibv_devinfo(ctx: Ctx) -> int:
    net = ctx.machine.net
    args = list(ctx.args)
    device: str | None = None
    verbose = False
    while args:
        arg = args.pop(0)
        if arg in ("-d", "--ib-dev") and args:
            device = args.pop(0)
        elif arg.startswith("--ib-dev="):
            device = arg.split("=", 1)[1]
        elif arg in ("-v", "--verbose"):
            verbose = True
        elif arg in ("-l", "--list"):
            ctx.out(f"{len(net.nics)} HCAs found:\n" + "".join(f"\t{n.name}\n" for n in net.nics))
            return 0
        elif arg in ("-i", "--ib-port") and args:
            args.pop(0)
    if not net.nics:
        ctx.err("No IB devices found\n")
        return 255
    if device is not None and net.nic(device) is None:
        ctx.err(f"IB device '{device}' wasn't found\n")
        return 255
    ctx.out(net.ibv_devinfo(device, verbose=verbose))
    return 0


def ibv_devices(ctx: Ctx) -> int:
    lines = ["    device          \t   node GUID", "    ------          \t----------------"]
    lines += [f"    {n.name:<16}\t{n.guid}" for n in ctx.machine.net.nics]
    ctx.out("\n".join(lines) + "\n")
    return 0


def show_gids(ctx: Ctx) -> int:
    device = ctx.args[0] if ctx.args else None
    if device is not None and ctx.machine.net.nic(device) is None:
        ctx.out(ctx.machine.net.show_gids("__none__"))
        return 0
    ctx.out(ctx.machine.net.show_gids(device))
    return 0


def ibdev2netdev(ctx: Ctx) -> int:
    ctx.out(ctx.machine.net.ibdev2netdev())
    return 0


def ip(ctx: Ctx) -> int:
    args = list(ctx.args)
    brief = oneline = False
    while args and args[0].startswith("-"):
        opt = args.pop(0)
        brief = brief or opt in ("-br", "-brief", "--brief")
        oneline = oneline or opt in ("-o", "-oneline", "--oneline")
    obj = args.pop(0) if args else ""
    if obj in ("a", "addr", "address"):
        link_only = False
    elif obj in ("l", "link"):
        link_only = True
    elif obj in ("r", "route"):
        eth0 = ctx.machine.net.ifaces[1]
        gateway = eth0.ipv4.rsplit(".", 2)[0] + ".0.1"
        ctx.out(
            f"default via {gateway} dev eth0 proto static\n"
            f"{eth0.ipv4.rsplit('.', 2)[0]}.0.0/16 dev eth0 proto kernel scope link src "
            f"{eth0.ipv4}\n"
        )
        return 0
    else:
        ctx.err(f'Object "{obj}" is unknown, try "ip help".\n')
        return 255
    if args and args[0] in ("show", "list", "ls"):
        args.pop(0)
    if args and args[0] == "dev":
        args.pop(0)
    dev = args[0] if args else None
    if dev is not None and ctx.machine.net.iface(dev) is None:
        ctx.err(f'Device "{dev}" does not exist.\n')
        return 1
    ctx.out(ctx.machine.net.ip_addr(brief=brief, oneline=oneline, dev=dev, link_only=link_only))
    return 0


RDMA_COMMANDS: dict[str, Command] = {
    "ibstat": ibstat,
    "ibv_devinfo": ibv_devinfo,
    "ibv_devices": ibv_devices,
    "show_gids": show_gids,
    "ibdev2netdev": ibdev2netdev,
}
COMMANDS: dict[str, Command] = {"ip": ip}
