/**
 * A copy-on-write view of a replay state, for `Projection.fork()`: the fold can run on the
 * view exactly as on the state itself, while the state underneath is never written.
 *
 * Every object read through the view is itself a view (memoized, so identity holds), and a
 * write lands in a copy or overlay private to the fork:
 * - plain objects and class instances (e.g. the ready index's FIFO trees) are copied
 *   shallowly on their first write; their nested values stay shared until written in turn;
 * - arrays keep an overlay of patched and appended elements (a fold that pushes to a long
 *   array copies nothing), and are copied only when shortened below the shared length;
 * - Maps and Sets keep an overlay of changed, removed and added entries that iterates in
 *   exactly the order the native collection would (a deleted then re-added key moves to
 *   the end).
 * Objects the fold creates (or stores) after the fork belong to it and are used as they are.
 * A fork therefore costs what the fold touches, not the size of the state.
 *
 * Values the view cannot serve (typed arrays, dates, weak collections, ...) throw at once: a
 * fold that starts keeping them must teach this module first (fork.test.ts checks every
 * state the fixture ledgers build).
 */
import { noteForkView } from '../state/unforked.ts';

/** A base object the view wraps, by view (to translate object keys back to the base). */
type Target = object;

const INDEX = /^(?:0|[1-9]\d{0,9})$/;

function indexOf(key: string | symbol): number {
  if (typeof key !== 'string' || !INDEX.test(key)) return -1;
  const i = Number(key);
  return i < 4294967295 ? i : -1;
}

/** One fork's views over one base state. */
class ForkContext {
  private readonly views = new WeakMap<Target, object>();
  private readonly targets = new WeakMap<object, Target>();
  /** Objects created or stored by the fork: never wrapped. */
  private readonly owned = new WeakSet<object>();

  wrap(value: unknown): unknown {
    if (typeof value !== 'object' || value === null) return value;
    if (this.owned.has(value) || this.targets.has(value)) return value;
    let view = this.views.get(value);
    if (view === undefined) {
      view = this.view(value);
      this.views.set(value, view);
      this.targets.set(view, value);
      noteForkView(view, value);
    }
    return view;
  }

  /** A value the fork stores: from now on it is the fork's own (a view stays a view). */
  adopt(value: unknown): void {
    if (typeof value === 'object' && value !== null && !this.targets.has(value)) this.owned.add(value);
  }

  /** The base object behind a view used as a Map key or Set member (anything else as is). */
  key(value: unknown): unknown {
    return typeof value === 'object' && value !== null ? (this.targets.get(value) ?? value) : value;
  }

  private view(target: object): object {
    if (target instanceof Map) return mapView(this, target);
    if (target instanceof Set) return setView(this, target);
    if (Array.isArray(target)) return arrayView(this, target);
    if (ArrayBuffer.isView(target) || target instanceof Date || target instanceof RegExp || target instanceof WeakMap || target instanceof WeakSet || target instanceof Promise) {
      throw new Error(`forkState: a ${target.constructor.name} in the replay state cannot be forked`);
    }
    return objectView(this, target);
  }
}

/** Forks a replay state (or any part of it): reads see the base, writes stay in the fork. */
export function forkState<T extends object>(base: T): T {
  return new ForkContext().wrap(base) as T;
}

/** Descriptor of a property the view reports (the dummy target holds none, so none is fixed). */
function reported(ctx: ForkContext, d: PropertyDescriptor | undefined): PropertyDescriptor | undefined {
  if (d === undefined) return undefined;
  if ('value' in d) d.value = ctx.wrap(d.value);
  d.configurable = true;
  return d;
}

function objectView(ctx: ForkContext, target: object): object {
  const proto = Object.getPrototypeOf(target) as object | null;
  let copy: object | null = null;
  const own = (): object => {
    if (copy === null) {
      const descriptors = Object.getOwnPropertyDescriptors(target);
      for (const d of Object.values(descriptors)) {
        d.configurable = true;
        if ('value' in d) d.writable = true;
      }
      copy = Object.create(proto, descriptors) as object;
    }
    return copy;
  };
  return new Proxy(Object.create(proto) as object, {
    get: (_, key, receiver) => ctx.wrap(Reflect.get(copy ?? target, key, receiver)),
    set: (_, key, value) => {
      ctx.adopt(value);
      return Reflect.set(own(), key, value);
    },
    deleteProperty: (_, key) => Reflect.deleteProperty(own(), key),
    defineProperty: (_, key, d) => {
      if ('value' in d) ctx.adopt(d.value);
      return Reflect.defineProperty(own(), key, { ...d, configurable: true });
    },
    has: (_, key) => Reflect.has(copy ?? target, key),
    ownKeys: () => Reflect.ownKeys(copy ?? target),
    getOwnPropertyDescriptor: (_, key) => reported(ctx, Reflect.getOwnPropertyDescriptor(copy ?? target, key)),
  });
}

/**
 * Array overlay: elements below the shared length are patched in `patches`, elements at or
 * past it live in `tail`. Shortening below the shared length, deleting an element or
 * defining a property switches to a full copy.
 */
function arrayView(ctx: ForkContext, target: unknown[]): object {
  const shared = target.length;
  const patches = new Map<number, unknown>();
  const tail: unknown[] = [];
  let length = shared;
  let copy: unknown[] | null = null;
  const materialize = (): unknown[] => {
    if (copy === null) {
      copy = target.slice(0, Math.min(shared, length));
      for (const [i, v] of patches) if (i < copy.length) copy[i] = v;
      for (let i = 0; i < tail.length; i++) if (shared + i < length) copy[shared + i] = tail[i];
      copy.length = length;
    }
    return copy;
  };
  const element = (i: number): unknown => {
    if (i >= length) return undefined;
    if (i >= shared) return tail[i - shared];
    return patches.has(i) ? patches.get(i) : ctx.wrap(target[i]);
  };
  return new Proxy([] as unknown[], {
    get: (_, key, receiver) => {
      if (copy !== null) return ctx.wrap(Reflect.get(copy, key, receiver));
      if (key === 'length') return length;
      const i = indexOf(key);
      if (i >= 0) return element(i);
      return ctx.wrap(Reflect.get(target, key, receiver));
    },
    set: (_, key, value) => {
      ctx.adopt(value);
      if (copy !== null) return Reflect.set(copy, key, value);
      if (key === 'length') {
        const next = Number(value);
        if (!Number.isInteger(next) || next < 0) throw new RangeError('Invalid array length');
        if (next < shared) return Reflect.set(materialize(), 'length', next);
        tail.length = Math.max(0, next - shared);
        length = next;
        return true;
      }
      const i = indexOf(key);
      if (i < 0) return Reflect.set(materialize(), key, value);
      if (i < shared) patches.set(i, value);
      else tail[i - shared] = value;
      if (i >= length) length = i + 1;
      return true;
    },
    deleteProperty: (_, key) => Reflect.deleteProperty(materialize(), key),
    defineProperty: (_, key, d) => {
      if ('value' in d) ctx.adopt(d.value);
      const i = indexOf(key);
      // What Array methods define on an array (a new element) is a plain set.
      if (copy === null && i >= 0 && 'value' in d && d.get === undefined && d.set === undefined && d.writable !== false && d.enumerable !== false && d.configurable !== false) {
        if (i < shared) patches.set(i, d.value);
        else tail[i - shared] = d.value;
        if (i >= length) length = i + 1;
        return true;
      }
      return Reflect.defineProperty(materialize(), key, key === 'length' ? d : { ...d, configurable: true });
    },
    has: (_, key) => {
      if (copy !== null) return Reflect.has(copy, key);
      const i = indexOf(key);
      if (i >= 0) return i < length && (i >= shared ? Object.hasOwn(tail, i - shared) : patches.has(i) || Object.hasOwn(target, i));
      return Reflect.has(target, key);
    },
    ownKeys: () => Reflect.ownKeys(materialize()),
    getOwnPropertyDescriptor: (_, key) => {
      if (key === 'length') return { value: copy?.length ?? length, writable: true, enumerable: false, configurable: false };
      return reported(ctx, Reflect.getOwnPropertyDescriptor(materialize(), key));
    },
  });
}

/** Base entries in order (minus removed ones, with changed values), then the added ones. */
function mapView(ctx: ForkContext, base: Map<unknown, unknown>): object {
  const changed = new Map<unknown, unknown>();
  const removed = new Set<unknown>();
  const added = new Map<unknown, unknown>();
  const inBase = (k: unknown): boolean => !removed.has(k) && base.has(k);
  function* entries(): Generator<[unknown, unknown]> {
    for (const [k, v] of base) {
      if (removed.has(k)) continue;
      yield [ctx.wrap(k), changed.has(k) ? changed.get(k) : ctx.wrap(v)];
    }
    for (const [k, v] of added) yield [ctx.wrap(k), v];
  }
  const methods: Record<string | symbol, unknown> = {
    get: (key: unknown) => {
      const k = ctx.key(key);
      if (added.has(k)) return added.get(k);
      if (!inBase(k)) return undefined;
      return changed.has(k) ? changed.get(k) : ctx.wrap(base.get(k));
    },
    has: (key: unknown) => {
      const k = ctx.key(key);
      return added.has(k) || inBase(k);
    },
    set: (key: unknown, value: unknown) => {
      const k = ctx.key(key);
      ctx.adopt(key);
      ctx.adopt(value);
      if (added.has(k) || !inBase(k)) added.set(k, value);
      else changed.set(k, value);
      return proxy;
    },
    delete: (key: unknown) => {
      const k = ctx.key(key);
      if (added.delete(k)) return true;
      if (!inBase(k)) return false;
      removed.add(k);
      changed.delete(k);
      return true;
    },
    clear: () => {
      for (const k of base.keys()) removed.add(k);
      changed.clear();
      added.clear();
    },
    entries,
    keys: function* () {
      for (const [k] of entries()) yield k;
    },
    values: function* () {
      for (const [, v] of entries()) yield v;
    },
    forEach: (fn: (v: unknown, k: unknown, m: unknown) => void, thisArg?: unknown) => {
      for (const [k, v] of entries()) fn.call(thisArg, v, k, proxy);
    },
    [Symbol.iterator]: entries,
  };
  const proxy: object = new Proxy(new Map(), {
    get: (dummy, key) => {
      if (key === 'size') return base.size - removed.size + added.size;
      if (Object.hasOwn(methods, key)) return methods[key];
      return Reflect.get(dummy, key);
    },
  });
  return proxy;
}

function setView(ctx: ForkContext, base: Set<unknown>): object {
  const removed = new Set<unknown>();
  const added = new Set<unknown>();
  const inBase = (v: unknown): boolean => !removed.has(v) && base.has(v);
  function* values(): Generator<unknown> {
    for (const v of base) if (!removed.has(v)) yield ctx.wrap(v);
    for (const v of added) yield ctx.wrap(v);
  }
  const methods: Record<string | symbol, unknown> = {
    has: (value: unknown) => {
      const v = ctx.key(value);
      return added.has(v) || inBase(v);
    },
    add: (value: unknown) => {
      const v = ctx.key(value);
      if (!added.has(v) && !inBase(v)) {
        ctx.adopt(value);
        added.add(v);
      }
      return proxy;
    },
    delete: (value: unknown) => {
      const v = ctx.key(value);
      if (added.delete(v)) return true;
      if (!inBase(v)) return false;
      removed.add(v);
      return true;
    },
    clear: () => {
      for (const v of base) removed.add(v);
      added.clear();
    },
    values,
    keys: values,
    entries: function* () {
      for (const v of values()) yield [v, v];
    },
    forEach: (fn: (v: unknown, k: unknown, s: unknown) => void, thisArg?: unknown) => {
      for (const v of values()) fn.call(thisArg, v, v, proxy);
    },
    [Symbol.iterator]: values,
  };
  const proxy: object = new Proxy(new Set(), {
    get: (dummy, key) => {
      if (key === 'size') return base.size - removed.size + added.size;
      if (Object.hasOwn(methods, key)) return methods[key];
      return Reflect.get(dummy, key);
    },
  });
  return proxy;
}
