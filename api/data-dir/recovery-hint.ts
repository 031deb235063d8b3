// What an operator is told to do when the server or a storage command refuses a damaged LevelDB
// store: the two commands, with the data directory it was given (as etcd names `etcdutl` in its
// refusals).

const flag = (dataDir: string): string => `--data-dir ${/^[\w./-]+$/.test(dataDir) ? dataDir : JSON.stringify(dataDir)}`;

export function repairHint(dataDir: string): string {
  return `run "fairway storage repair ${flag(dataDir)}" to repair it (it copies the store directory first)`;
}

export function recoveryHint(dataDir: string): string {
  return `run "fairway storage check ${flag(dataDir)}" to see what is wrong, and ${repairHint(dataDir).replace(/^run /, '')}`;
}
