"""Where control flow joins: the `for` loops and run-time `if`s of a kernel.

Python rebinds names freely; Block IR defines each value once. At a join the
translator compares what each name held before with what it holds after (a
loop body, each branch of an `if`), leaf by leaf (structure.py), and makes
the leaves that changed a loop's `iter` values or an `if`'s results. A leaf
that starts as a Python number is carried only if the body changes it, and
then with the type the body gives it, which may take a second translation of
the body.
"""

import ast

from . import structure
from .dtypes import int1, int32, int64, literal_type
from .values import tensor


def _first_return(statements):
    for top in statements:
        for node in ast.walk(top):
            if isinstance(node, ast.Return):
                return node
    return None


def _assigned_names(statements):
    """Names a loop body may rebind, found without translating it."""
    names = set()
    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
    return names


class ControlFlow:
    """The Translator's loops and run-time `if`s (mixed into it)."""

    def _runtime_if(self, node, condition, then_branch, else_branch, to_end=False):
        """to_end: each branch runs to the end of the function (visit_If
        moved the rest of the function into both), so only the values
        returned join."""
        if not isinstance(condition, tensor) or condition.shape:
            raise self.error(node, "the condition of an `if` must be a scalar; for a block "
                             "condition use tl.where")
        condition = self.builder.to_i1(condition)
        frame = self.frame
        before = dict(frame.env)
        branches = []
        for branch in (then_branch, else_branch):
            frame.env = dict(before)
            frame.returned, frame.return_value = False, None
            self.emitter.push()
            branch()
            branches.append((self.emitter.pop(), frame.env, frame.returned, frame.return_value))
        (then_lines, then_env, then_ret, then_value), (else_lines, else_env, else_ret,
                                                       else_value) = branches
        if to_end:
            results, finish = self._join(node, {None: (then_value, else_value)}, then_lines,
                                         else_lines)
            frame.env = before
            frame.returned, frame.return_value = True, results[None]
            finish(condition)
            return
        if then_ret != else_ret:
            raise self.unsupported(node, "a return on one side of an `if` on a runtime value "
                                   "here: Block IR has no early exit from a loop")
        joined = {}
        for name in then_env:
            if name in else_env and not (then_env[name] is else_env[name]):
                joined[name] = (then_env[name], else_env[name])
        results, finish = self._join(node, joined, then_lines, else_lines)
        frame.env = {name: value for name, value in then_env.items()
                     if name in else_env and then_env[name] is else_env[name]}
        for name, value in results.items():
            frame.env[name] = value
        frame.returned, frame.return_value = False, None
        finish(condition)

    def _join(self, node, joined, then_lines, else_lines):
        """Decides the results of an `if` whose branches left `joined` values
        (name -> (then, else)); returns them and a function that writes the op."""
        then_leaves, else_leaves, shapes, result_types = [], [], {}, []
        then_extra, else_extra = [], []
        for name, (a, b) in joined.items():
            a_shape, a_leaves = structure.flatten(a)
            b_shape, b_leaves = structure.flatten(b)
            label = "the return value" if name is None else f"'{name}'"
            if not structure.same_shape(a_shape, b_shape):
                if name is None:
                    raise self.error(node, "the function returns " + self._describe(a) +
                                     " on a path through this `if` and " + self._describe(b) +
                                     " on another (reaching the end of the function returns "
                                     "None); every return must give the same kind of value")
                raise self.error(node, f"{label} is {self._describe(a)} after one branch and "
                                 f"{self._describe(b)} after the other")
            spans = []
            for x, y in zip(a_leaves, b_leaves):
                if not isinstance(x, tensor) and not isinstance(y, tensor) and x == y and \
                        type(x) is type(y):
                    spans.append(("same", x))
                    continue
                ty, shape = self._join_type(node, label, x, y)
                then_leaves.append((x, then_extra))
                else_leaves.append((y, else_extra))
                result_types.append((ty, shape))
                spans.append(("result", len(result_types) - 1))
            shapes[name] = (a_shape, spans)
        names = [self.emitter.fresh("if") for _ in result_types]

        def materialise(leaves, lines):
            self.emitter.push()
            self.emitter.extend(lines)
            handles = []
            for (value, _), (ty, shape), name in zip(leaves, result_types, names):
                handles.append(self.builder.broadcast_to(self.builder.to_tensor(value, ty),
                                                         shape).handle)
                if ty.is_ptr():
                    self.builder.derive(name, [handles[-1]])
            if handles:
                self.emitter.line(f"yield {', '.join(handles)}", self.builder.loc)
            return self.emitter.pop()

        then_final = materialise(then_leaves, then_lines)
        else_final = materialise(else_leaves, else_lines)
        results = {}
        for name, (shape, spans) in shapes.items():
            leaves = [value if kind == "same" else
                      tensor(names[value], *result_types[value]) for kind, value in spans]
            results[name] = structure.unflatten(shape, leaves)

        def finish(condition):
            head = f"{', '.join(names)} = " if names else ""
            self.emitter.line(f"{head}if {condition.handle} {{", self.builder.loc)
            self.emitter.extend(then_final)
            self.emitter.line("} else {", self.builder.loc)
            self.emitter.extend(else_final)
            self.emitter.line("}", self.builder.loc)

        return results, finish

    def _join_type(self, node, label, x, y):
        if isinstance(x, tensor) and isinstance(y, tensor):
            if x.dtype != y.dtype or x.shape != y.shape:
                raise self.error(node, f"{label} is {x.bir_type} after one branch and "
                                 f"{y.bir_type} after the other")
            return x.dtype, x.shape
        if isinstance(x, tensor) or isinstance(y, tensor):
            known = x if isinstance(x, tensor) else y
            return known.dtype, known.shape
        tx, ty = literal_type(x), literal_type(y)
        if tx != ty:
            raise self.error(node, f"{label} is {tx} after one branch and {ty} after the other")
        return tx, ()

    def _counted_loop(self, node, lo, hi, step):
        b = self.builder
        for bound in (lo, hi, step):
            if isinstance(bound, tensor) and (bound.shape or not bound.dtype.is_int() or
                                              bound.dtype.is_int1()):
                raise self.error(node.iter, f"loop bounds must be scalar integers, got "
                                 f"{bound.bir_type}")
            if not isinstance(bound, tensor) and (not isinstance(bound, int) or
                                                  isinstance(bound, bool)):
                raise self.error(node.iter, f"loop bounds must be integers, got {bound!r}")
        wide = any((isinstance(v, tensor) and v.dtype == int64) or
                   (not isinstance(v, tensor) and not -2**31 <= v < 2**31) for v in (lo, hi, step))
        ty = int64 if wide else int32
        if isinstance(step, int) and step == 0:
            raise self.error(node.iter, "range() step must not be zero")
        lo_t, hi_t = b.to_tensor(lo, ty), b.to_tensor(hi, ty)
        if isinstance(step, int) and step > 0:
            step_t = b.to_tensor(step, ty)
            header = (lo_t, hi_t, step_t)
            induction = None
        else:
            # Block IR steps upward; a downward or run-time step counts
            # iterations t = 0, 1, ... and computes i = lo + t * step.
            step_t = b.to_tensor(step, ty)
            if isinstance(step, int):
                span = b.sub(lo_t, hi_t)
                count = b.floordiv(b.add(span, -step - 1), -step)
            else:
                up = b.floordiv(b.add(b.sub(hi_t, lo_t), b.sub(step_t, 1)), step_t)
                down = b.floordiv(b.sub(b.sub(lo_t, hi_t), b.add(step_t, 1)), b.minus(step_t))
                count = b.where(b.compare("gt", step_t, 0), up, down)
                count = b.where(b.compare("eq", step_t, 0), 0, count)
            header = (b.const(0, ty), count, b.const(1, ty))
            induction = (lo_t, step_t)
        self._loop(node, header, ty, induction)

    def _while_loop(self, node):
        """`while COND:` as Block IR's `while`: the condition is evaluated before
        the loop and again at the end of each trip, from the values the trip
        leaves, which is when Python evaluates it."""
        if node.orelse:
            raise self.unsupported(node, "while ... else")
        first = self._while_condition(node.test, False)
        self._loop(node, ("while", first), None, None)

    def _while_condition(self, test, after_trip):
        condition = self.visit(test)
        condition = getattr(condition, "value", condition) if not isinstance(condition, tensor) \
            else condition
        if not isinstance(condition, tensor):
            # Known while translating: before the first trip the values may
            # still be numbers (`i = 0`) that the body makes carried tensors;
            # after a trip, a condition that is still always true never ends.
            if condition and after_trip:
                raise self.error(test, "a while loop whose condition is true at compile time "
                                 "never ends (break is not supported)")
            return self.builder.const(bool(condition), int1)
        if condition.shape:
            raise self.error(test, f"a while condition must be a scalar, got a block of shape "
                             f"{list(condition.shape)}")
        return self.builder.to_i1(condition)

    def _loop(self, node, header, ty, induction):
        frame = self.frame
        early = _first_return(node.body)
        if early is not None:
            raise self.unsupported(early, "return inside a loop: Block IR loops have no early "
                                   "exit")
        saved_tail = frame.tail
        frame.tail = None
        try:
            self._loop_body(node, header, ty, induction)
        finally:
            frame.tail = saved_tail

    def _loop_body(self, node, header, ty, induction):
        frame = self.frame
        before = dict(frame.env)
        candidates = [n for n in sorted(_assigned_names(node.body)) if n in before]
        flat = {n: structure.flatten(before[n]) for n in candidates}
        # Per candidate leaf: the (dtype, shape) it is carried as, or None
        # while it is a number that the body may leave alone.
        carried = {n: [(v.dtype, v.shape) if isinstance(v, tensor) else None
                       for v in flat[n][1]] for n in candidates}
        for _ in range(3):
            iv = tensor(self.emitter.fresh("i"), ty) if header[0] != "while" else None
            args = []

            def iter_arg(name, kind, initial):
                arg = tensor(self.emitter.fresh(name.strip("_") or "a"), *kind)
                args.append((arg, initial))
                return arg

            frame.env = _rebind(before, flat, carried, iter_arg)
            self.emitter.push()
            if iv is not None:
                index = iv
                if induction is not None:
                    lo_t, step_t = induction
                    index = self.builder.add(lo_t, self.builder.mul(iv, step_t))
                self._assign(node.target, index)
            self._block(node.body)
            after = frame.env
            # A while loop's next condition, from the values the body leaves.
            next_condition = self._while_condition(node.test, True) if iv is None else None
            retry, yields = False, []
            for n in candidates:
                shape, leaves = structure.flatten(after[n])
                if not structure.same_shape(shape, flat[n][0]) or len(leaves) != len(carried[n]):
                    raise self.error(node, f"'{n}' is {self._describe(before[n])} before the loop "
                                     f"and {self._describe(after[n])} after its body")
                for i, (leaf, kind) in enumerate(zip(leaves, carried[n])):
                    initial = flat[n][1][i]
                    if kind is None:
                        if isinstance(leaf, tensor) or leaf != initial or \
                                type(leaf) is not type(initial):
                            carried[n][i] = (leaf.dtype, leaf.shape) if isinstance(
                                leaf, tensor) else (literal_type(leaf), ())
                            retry = True
                        continue
                    if isinstance(leaf, tensor) and (leaf.dtype, leaf.shape) != kind:
                        if isinstance(initial, tensor):
                            raise self.error(node, f"'{n}' is {self._bir(*kind)} before the loop "
                                             f"and {leaf.bir_type} after its body; a loop-carried "
                                             "value keeps its type")
                        carried[n][i] = (leaf.dtype, leaf.shape)
                        retry = True
                        continue
                    yields.append((leaf, kind))
            if retry:
                self.emitter.pop()
                continue
            b = self.builder
            handles = [b.broadcast_to(b.to_tensor(v, kind[0]), kind[1]).handle
                       for v, kind in yields]
            if next_condition is not None:
                handles.insert(0, next_condition.handle)
            if handles:
                self.emitter.line(f"yield {', '.join(handles)}", b.loc)
            body = self.emitter.pop()
            frame.env = before
            inits = [b.broadcast_to(b.to_tensor(initial, arg.dtype), arg.shape).handle
                     for arg, initial in args]
            results = [tensor(self.emitter.fresh(arg.handle[1:].split(".")[0] + "_out"),
                              arg.dtype, arg.shape) for arg, _ in args]
            # A carried pointer holds its initial value or what an iteration
            # yields, and so does the loop's result (after no iteration, the
            # initial value).
            for (arg, _), result, init, yielded in zip(args, results, inits, handles):
                if arg.dtype.is_ptr():
                    b.derive(arg.handle, [init, yielded])
                    b.derive(result.handle, [init, yielded])
            head = f"{', '.join(r.handle for r in results)} = " if results else ""
            carried_text = f" iter({', '.join(f'{a.handle} = {i}' for (a, _), i in zip(args, inits))})" \
                if args else ""
            if iv is None:
                self.emitter.line(f"{head}while {header[1].handle}{carried_text} {{", b.loc)
            else:
                lo, hi, st = header
                self.emitter.line(f"{head}for {iv.handle} = {lo.handle} to {hi.handle} step "
                                  f"{st.handle}{carried_text} {{", b.loc)
            self.emitter.extend(body)
            self.emitter.line("}", b.loc)
            remaining = iter(results)
            frame.env = _rebind(before, flat, carried, lambda *_: next(remaining))
            return
        raise self.error(node, "the types of the values this loop carries do not settle")


def _rebind(before, flat, carried, replacement):
    """`before` with every carried leaf of the names in `flat` replaced by
    replacement(name, kind, leaf), in order; the other leaves kept."""
    env = dict(before)
    for name, (shape, leaves) in flat.items():
        env[name] = structure.unflatten(shape, [
            leaf if kind is None else replacement(name, kind, leaf)
            for leaf, kind in zip(leaves, carried[name])])
    return env
