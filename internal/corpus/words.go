package corpus

// The word lists below are the whole "language" of the generated vault. They
// are read-only after package initialisation.

// techWords build concept labels.
var techWords = []string{
	"attention", "gradient", "checkpointing", "sparse", "dense", "vector", "index", "graph",
	"memory", "cache", "retrieval", "embedding", "tokenizer", "transformer", "encoder", "decoder",
	"latent", "diffusion", "kernel", "scheduler", "queue", "shard", "replica", "consensus",
	"ledger", "compiler", "parser", "lexer", "runtime", "garbage", "collector", "allocator",
	"heap", "stack", "thread", "mutex", "channel", "actor", "stream", "batch",
	"pipeline", "feature", "store", "schema", "migration", "query", "planner", "optimizer",
	"join", "bloom", "filter", "hash", "tree", "trie", "sketch", "sampling",
	"reservoir", "entropy", "loss", "regularization", "dropout", "normalization", "layer", "residual",
	"convolution", "recurrent", "policy", "reward", "agent", "planning", "search", "beam",
	"greedy", "decoding", "prompt", "context", "window", "distillation", "quantization", "pruning",
	"adapter", "tuning", "contrastive", "learning", "federated", "privacy", "differential", "encryption",
	"signature", "certificate", "protocol", "handshake", "latency", "throughput", "backpressure", "circuit",
	"breaker", "retry", "idempotency", "event", "sourcing", "snapshot", "compaction", "tombstone",
	"vacuum", "journal", "replication", "partition", "tolerance", "availability", "quorum", "gossip",
	"membership", "lease", "fencing", "token", "clock", "lamport", "hybrid", "logical",
	"causal", "ordering", "spectral", "clustering", "manifold", "topology", "homology", "category",
	"functor", "monad", "lattice", "semiring", "automaton", "grammar", "inference", "unification",
	"ontology", "taxonomy", "knowledge", "reasoning", "recall", "precision", "ranking", "relevance",
	"decay", "spaced", "repetition", "curriculum", "benchmark", "profiling", "tracing", "telemetry",
	"backoff", "jitter", "watermark", "windowing", "checkpoint", "rollback", "canary", "deployment",
}

// acronyms are single-word labels that keep their case.
var acronyms = []string{
	"LLM", "RAG", "BM25", "HNSW", "LSM", "CRDT", "MVCC", "RPC", "GPU", "TPU", "SIMD", "FFT",
	"PCA", "SVD", "OAuth", "JSON", "YAML", "gRPC", "WebAssembly", "Kubernetes", "PostgreSQL",
	"SQLite", "Redis", "Raft", "Paxos",
}

// accentedLabels are concept labels with non-ASCII Latin letters.
var accentedLabels = []string{
	"Gödel incompleteness", "Poincaré conjecture", "Fréchet distance", "Schrödinger equation",
	"Erdős number", "Kähler manifold", "naïve Bayes", "déjà vu", "café racer", "crème brûlée",
	"Zürich model", "São Paulo office", "Dvořák keyboard", "Ångström scale", "résumé parsing",
	"façade pattern", "jalapeño index", "Møller scattering", "Łukasiewicz logic", "über graph",
	"Lévy flight", "Bézier curve", "Hölder continuity", "Möbius strip", "Cauchy–Schwarz",
}

// cjkLabels are concept labels in Japanese, Chinese and Korean.
var cjkLabels = []string{
	"注意機構", "勾配降下法", "知識グラフ", "埋め込み表現", "機械学習", "自然言語処理", "強化学習",
	"検索拡張生成", "長期記憶", "概念地図", "向量数据库", "知识图谱", "语义搜索", "신경망",
	"形態素解析", "分散システム", "合意形成", "転移学習",
}

// syllables build pronounceable pseudo-words for the long tail of the vocabulary.
var (
	onsets = []string{"b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "br", "kr", "st", "tr", "pl", "sh"}
	vowels = []string{"a", "e", "i", "o", "u", "ai", "ou", "ea"}
	codas  = []string{"", "", "n", "r", "l", "s", "k", "m", "th", "x"}
)

// proseWords build sentences.
var proseWords = []string{
	"the", "a", "we", "it", "this", "that", "our", "their", "system", "model", "team", "result",
	"approach", "idea", "question", "answer", "problem", "design", "change", "review", "test", "run",
	"data", "note", "draft", "version", "week", "day", "time", "cost", "risk", "plan", "goal",
	"is", "was", "seems", "looks", "becomes", "remains", "needs", "uses", "keeps", "shows", "makes",
	"improves", "breaks", "explains", "suggests", "requires", "supports", "reduces", "increases",
	"fast", "slow", "simple", "careful", "large", "small", "stable", "fragile", "clear", "vague",
	"new", "old", "useful", "costly", "cheap", "surprising", "obvious", "subtle", "robust", "noisy",
	"and", "but", "or", "so", "because", "when", "while", "after", "before", "since", "although",
	"in", "on", "with", "without", "for", "from", "into", "over", "under", "between", "across",
	"very", "quite", "rather", "mostly", "rarely", "often", "again", "still", "already", "perhaps",
	"benchmark", "baseline", "experiment", "metric", "trace", "log", "config", "service", "client",
	"server", "request", "response", "budget", "deadline", "meeting", "paper", "chapter", "summary",
	"evidence", "argument", "example", "detail", "pattern", "trade-off", "limit", "failure", "success",
}

// headingWords build section headings and `#Heading` anchors.
var headingWords = []string{
	"Overview", "Background", "Motivation", "Details", "Open Questions", "Next Steps", "Results",
	"Method", "Observations", "Summary", "Notes", "Ideas", "Risks", "Decisions", "References",
	"Setup", "Findings", "Caveats", "Timeline", "Examples", "Design", "Evaluation", "Follow-up",
}

// tagWords are front-matter tags.
var tagWords = []string{
	"ml", "infra", "reading", "idea", "draft", "meeting", "paper", "project/alpha", "project/beta",
	"todo", "review", "research", "howto", "日本語", "archive", "evergreen",
}

// folderNames are the vault's folders, in the order they are taken.
var folderNames = []string{
	"", "inbox", "projects/alpha", "journal/2024", "reading/papers", "areas/research",
	"projects/beta/design", "archive", "areas/infra", "journal/2025", "reading/books", "people",
}

// codeSnippets are plain code blocks without links.
var codeSnippets = []string{
	"```go\nfunc add(a, b int) int {\n\treturn a + b\n}\n```",
	"```python\nfor i, row in enumerate(rows):\n    print(i, row[0])\n```",
	"```sh\ngo test -run TestIndex ./...\n```",
	"```json\n{\"name\": \"example\", \"values\": [1, 2, 3]}\n```",
	"```sql\nSELECT id, title FROM notes WHERE modified > ?;\n```",
}

// fakeTargets are link targets that appear only inside code.
var fakeTargets = []string{
	"Fake Links", "Not A Link", "Example Page", "Template Note", "Placeholder Concept",
}
