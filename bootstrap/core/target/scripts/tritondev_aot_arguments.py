# mypy: ignore-errors
"""The user's --signature, --constexpr and --config paired with a kernel's arguments, for tritondev_aot.py.

A usage error names what is wrong and shows the options that fix it: the kernel's own argument list
with the types given, guesses for the others, and the autotune configs to choose from.
"""

import inspect

from tritondev_protocol import EXIT_USAGE, fail


def describe_config(index, config):
    parts = [f"{k}={v}" for k, v in config.kwargs.items()]
    parts += [
        f"{k}={getattr(config, k)}"
        for k in ("num_warps", "num_stages", "num_ctas", "maxnreg")
        if getattr(config, k, None) is not None and not (k == "num_ctas" and config.num_ctas == 1)
    ]
    return f"--config {index}: {', '.join(parts)}"


def choose_config(fn, configs, index, constexprs, options):
    """The constexprs and options of autotune config `index`; the user's own --constexpr and options win."""
    name = fn.__name__
    if not configs:
        fail(
            "usage",
            f"{name} is not @triton.autotune'd: it has no configs to choose from",
            EXIT_USAGE,
            fix="drop --config and give each tl.constexpr with --constexpr NAME=VALUE",
        )
    if not 0 <= index < len(configs):
        listing = "; ".join(describe_config(i, c) for i, c in enumerate(configs))
        fail(
            "usage",
            f"{name} has {len(configs)} autotune configs, numbered from 0: no config {index}",
            EXIT_USAGE,
            fix=f"choose one: {listing}",
        )
    config = configs[index]
    chosen = {
        k: getattr(config, k)
        for k in ("num_warps", "num_stages", "num_ctas", "maxnreg")
        if getattr(config, k, None) is not None
    }
    return {**config.kwargs, **constexprs}, {**chosen, **options}


def describe_args(fn):
    parts = []
    for p in fn.params:
        parts.append(f"{p.name}: tl.constexpr" if p.is_constexpr else p.name)
    return ", ".join(parts)


def guess_type(name):
    return "*fp32" if "ptr" in name.lower() else "i32"


def suggested_arguments(fn, types, constexprs):
    """This kernel's own argument list as the options that compile it: the types given, guesses for the
    others, and a --constexpr for each tl.constexpr without a value or default."""
    defaults = inspect.signature(fn.fn).parameters
    named, values = [], []
    for p in fn.params:
        if p.is_constexpr:
            if p.name not in constexprs and defaults[p.name].default is inspect.Parameter.empty:
                values.append(f"--constexpr {p.name}=VALUE")
        elif p.name in types:
            hint = types[p.name].get("divisibility")
            named.append(f"{p.name}={types[p.name]['type']}" + (f":{hint}" if hint else ""))
        elif p.name not in constexprs:
            named.append(f"{p.name}={guess_type(p.name)}")
    return f'{fn.__name__}({describe_args(fn)}): --signature "{",".join(named)}"' + "".join(f" {v}" for v in values)


def from_positional(fn, positional, constexprs):
    """Upstream's positional form (triton.tools.compile): entry i is argument i, a type or a constexpr value."""
    names = list(fn.arg_names)
    if len(positional) > len(names):
        fail(
            "usage",
            f"--signature has {len(positional)} entries; {fn.__name__} takes {len(names)} arguments "
            f"({describe_args(fn)})",
            EXIT_USAGE,
            fix=f"give one entry per argument: {suggested_arguments(fn, {}, {})}",
        )
    params, values = [], dict(constexprs)
    for i, entry in enumerate(positional):  # no zip(strict=...): the target may run Python 3.9
        name = names[i]
        if name in constexprs:
            fail(
                "usage",
                f"{name} of {fn.__name__} is given both in --signature (entry {names.index(name) + 1}) "
                "and as --constexpr",
                EXIT_USAGE,
                fix="give it once",
            )
        if entry.get("type") is None:
            values[name] = entry.get("value")
        else:
            params.append({"name": name, "type": entry["type"], "divisibility": entry.get("divisibility")})
    return params, values


def match_arguments(fn, params, constexprs, configs=None):
    """Pair the user's types and values with the kernel's arguments; usage errors name what is wrong."""
    names = list(fn.arg_names)
    types = {p["name"]: p for p in params}
    unknown = [n for n in list(types) + list(constexprs) if n not in names]
    if unknown:
        fail(
            "usage",
            f"{fn.__name__} has no argument {', '.join(unknown)} (its arguments: {describe_args(fn)})",
            EXIT_USAGE,
        )
    plan, missing_types, missing_values, typed_constexprs = pair_arguments(fn, types, constexprs)
    if typed_constexprs:
        example = " ".join(f"--constexpr {n}=VALUE" for n in typed_constexprs)
        fail(
            "usage",
            f"{', '.join(typed_constexprs)} of {fn.__name__} is a tl.constexpr, not a typed argument",
            EXIT_USAGE,
            fix=f"drop it from --signature and give {example}",
        )
    if missing_types:
        fail(
            "usage",
            f"--signature gives no type for {', '.join(missing_types)} of {fn.__name__}({describe_args(fn)})",
            EXIT_USAGE,
            fix=f"{suggested_arguments(fn, types, constexprs)}  (types of {', '.join(missing_types)} guessed: "
            "check them)",
        )
    if missing_values and configs:
        listing = "; ".join(describe_config(i, c) for i, c in enumerate(configs))
        fail(
            "usage",
            f"tl.constexpr {', '.join(missing_values)} of {fn.__name__} has no value: the kernel is "
            f"@triton.autotune'd with {len(configs)} config(s)",
            EXIT_USAGE,
            fix=f"compile one of them with --config N ({listing}), or give --constexpr NAME=VALUE",
            configs=[describe_config(i, c) for i, c in enumerate(configs)],
        )
    if missing_values:
        fail(
            "usage",
            f"tl.constexpr {', '.join(missing_values)} of {fn.__name__} has no value and no default",
            EXIT_USAGE,
            fix=suggested_arguments(fn, types, constexprs),
        )
    return plan


def pair_arguments(fn, types, constexprs):
    """Each argument of the kernel as a plan entry (index, name, type, value, divisibility), and the names
    that cannot be compiled as given: plain arguments without a type, tl.constexprs without a value, and
    tl.constexprs given a type."""
    defaults = inspect.signature(fn.fn).parameters
    plan, missing_types, missing_values, typed_constexprs = [], [], [], []
    for i, p in enumerate(fn.params):
        name = p.name
        if p.is_constexpr:
            if name in types:
                typed_constexprs.append(name)
            elif name in constexprs:
                plan.append((i, name, "constexpr", constexprs[name], None))
            elif defaults[name].default is not inspect.Parameter.empty:
                plan.append((i, name, "constexpr", defaults[name].default, None))
            else:
                missing_values.append(name)
        elif name in types:
            plan.append((i, name, types[name]["type"], None, types[name].get("divisibility")))
        elif name in constexprs:
            # A plain argument fixed to a value at compile time, as Triton's own AOT compiler allows.
            plan.append((i, name, "constexpr", constexprs[name], None))
        else:
            missing_types.append(name)
    return plan, missing_types, missing_values, typed_constexprs
