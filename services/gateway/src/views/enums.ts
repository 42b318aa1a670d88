import { AppError } from '@esim/errors';

/**
 * A protobuf enum value → the contract's lower-case name (`PROCESSING` →
 * `processing`), checked against the vocabulary the view's schema uses.
 * UNSPECIFIED or a value this gateway does not know is a bug upstream, not
 * something the client can fix: INTERNAL, never a silently wrong field.
 */
export function fromProtoEnum<const V extends readonly string[]>(names: V, protoEnum: Record<number, string>, value: number, what: string): V[number] {
  const name = protoEnum[value]?.toLowerCase();
  if (name === undefined || !names.includes(name)) throw new AppError('INTERNAL', `unexpected ${what} ${value}`);
  return name;
}

/** The contract's name → the protobuf enum value (`esim.installed` → `ESIM_INSTALLED`); 0 (UNSPECIFIED) when absent. */
export function toProtoEnum(protoEnum: Record<string, string | number>, name: string | undefined): number {
  if (name === undefined) return 0;
  const value = protoEnum[name.toUpperCase().replaceAll('.', '_')];
  if (typeof value !== 'number') throw new AppError('INTERNAL', `no protobuf value for ${name}`);
  return value;
}
