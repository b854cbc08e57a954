import type { AccountName, Principal, World } from './world.js';

/**
 * What identifies each party's data: ids, names, e-mail addresses, file hashes and secrets. An
 * answer to one caller must hold none of another party's, except what the caller itself sent
 * (an id in the path comes back in a 404's message) and what the operation exists to show
 * (a shared report shows the shared file's hashes to whoever holds the link).
 */
export interface Marker {
  party: AccountName | 'anonymous';
  kind: 'id' | 'name' | 'email' | 'hash' | 'secret';
  value: string;
}

export function markersOf(world: World): Marker[] {
  const markers: Marker[] = [];
  const add = (party: Marker['party'], kind: Marker['kind'], values: string[]) => {
    for (const value of values) if (value) markers.push({ party, kind, value });
  };
  for (const party of ['A', 'B'] as const) {
    const r = world[party];
    add(party, 'id', [r.accountId, r.owner.userId, ...r.users.map((u) => u.userId), r.verification, r.restricted, r.sandbox, r.tag.id, r.comment, r.keyId]);
    add(party, 'name', [r.accountName, r.owner.name, ...r.users.map((u) => u.name)]);
    add(party, 'email', [r.owner.email, ...r.users.map((u) => u.email)]);
    add(party, 'hash', r.fileHashes);
    add(party, 'secret', r.secrets);
  }
  add('C', 'id', [world.C.accountId, world.C.userId]);
  add('C', 'name', [world.C.accountName, world.C.name]);
  add('C', 'email', [world.C.email]);
  add('C', 'secret', [world.C.token]);
  add('anonymous', 'id', [world.anonymous.verification]);
  add('anonymous', 'hash', world.anonymous.fileHashes);
  add('anonymous', 'secret', [world.anonymous.userId]);
  return markers;
}

/**
 * The other parties' markers found in an answer to `principal`: everything of a party it does
 * not belong to, minus what its request carried and what `shown` allows.
 */
export function leaksIn(text: string, markers: Marker[], principal: Principal, sent: string, shown: (m: Marker) => boolean = () => false): Marker[] {
  const lowered = text.toLowerCase();
  const sentLowered = sent.toLowerCase();
  return markers.filter((m) => {
    if (m.party === principal.account) return false;
    if (m.party === 'anonymous' && principal.name === 'anonymous') return false;
    const value = m.value.toLowerCase();
    if (sentLowered.includes(value) || sentLowered.includes(encodeURIComponent(m.value).toLowerCase())) return false;
    if (shown(m)) return false;
    return lowered.includes(value) || lowered.includes(encodeURIComponent(m.value).toLowerCase());
  });
}
