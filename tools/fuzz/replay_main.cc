// The main of a fuzz target in builds without libFuzzer (the default gcc build): it replays
// the corpus files and directories it is given through LLVMFuzzerTestOneInput, then fuzzes
// from them for -max_total_time seconds (or -runs inputs) with random byte-level mutations
// from a fixed -seed. So every `bazel test` runs each target's regressions and a short,
// reproducible fuzz session; --config=fuzz swaps this for libFuzzer's coverage-guided one.
// The flags it knows are libFuzzer's (-max_total_time, -runs, -seed, -max_len); others are
// ignored. An input that crashes the target is written to ./crash-replay before it dies.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// The input being run, for the crash handler.
const std::string* current_input = nullptr;

void SaveInputAndDie(int sig) {
  if (current_input != nullptr) {
    const int fd = open("crash-replay", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ssize_t ignored = write(fd, current_input->data(), current_input->size());
      (void)ignored;
      close(fd);
    }
    const char message[] = "replay_main: the target crashed; input saved to ./crash-replay\n";
    ssize_t ignored = write(2, message, sizeof message - 1);
    (void)ignored;
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void Run(const std::string& input) {
  current_input = &input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  current_input = nullptr;
}

bool ReadFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream text;
  text << in.rdbuf();
  *out = text.str();
  return true;
}

// Files named on the command line, and the regular files in directories named there.
std::vector<std::string> LoadCorpus(const std::vector<std::string>& paths) {
  std::vector<std::string> corpus;
  for (const std::string& path : paths) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      std::fprintf(stderr, "replay_main: %s: no such file or directory\n", path.c_str());
      std::exit(1);
    }
    std::vector<std::string> files;
    if (S_ISDIR(st.st_mode)) {
      DIR* dir = opendir(path.c_str());
      while (const dirent* entry = dir ? readdir(dir) : nullptr) {
        if (entry->d_name[0] != '.') files.push_back(path + "/" + entry->d_name);
      }
      if (dir) closedir(dir);
    } else {
      files.push_back(path);
    }
    for (const std::string& file : files) {
      std::string data;
      if (ReadFile(file, &data)) corpus.push_back(std::move(data));
    }
  }
  return corpus;
}

// One to four random edits: flip a bit, set a byte to an interesting value, insert or delete
// a run of bytes, copy a piece of another corpus input in, or repeat a piece.
std::string Mutate(const std::vector<std::string>& corpus, std::mt19937_64& rng, size_t max_len) {
  auto pick = [&](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  std::string s = corpus.empty() ? std::string() : corpus[pick(corpus.size())];
  static const uint8_t kInteresting[] = {0, 1, 0x7f, 0x80, 0xff, '0', '9', '-', '.', ':', '{',
                                         '}', '"', '\n', ' ', 'e'};
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 6) {
      case 0:
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << (rng() % 8));
        break;
      case 1:
        if (!s.empty())
          s[pick(s.size())] = static_cast<char>(kInteresting[pick(sizeof kInteresting)]);
        break;
      case 2:
        s.insert(pick(s.size() + 1), 1 + pick(8), static_cast<char>(rng()));
        break;
      case 3:
        if (!s.empty()) {
          const size_t at = pick(s.size());
          s.erase(at, 1 + pick(std::min<size_t>(16, s.size() - at)));
        }
        break;
      case 4:
        if (!corpus.empty()) {
          const std::string& other = corpus[pick(corpus.size())];
          const size_t from = pick(other.size() + 1);
          s.insert(pick(s.size() + 1), other.substr(from, 1 + pick(64)));
        }
        break;
      default:
        if (!s.empty()) {
          const size_t from = pick(s.size());
          const std::string piece = s.substr(from, 1 + pick(32));
          s.insert(pick(s.size() + 1), piece);
        }
    }
  }
  if (s.size() > max_len) s.resize(max_len);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  double max_total_time = 0;
  long long runs = -1;
  unsigned long long seed = 1;
  size_t max_len = 4096;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const size_t n = std::strlen(flag);
      return arg.compare(0, n, flag) == 0 ? arg.c_str() + n : nullptr;
    };
    if (const char* v = value("-max_total_time=")) {
      max_total_time = std::atof(v);
    } else if (const char* v = value("-runs=")) {
      runs = std::atoll(v);
    } else if (const char* v = value("-seed=")) {
      seed = std::strtoull(v, nullptr, 10);
    } else if (const char* v = value("-max_len=")) {
      max_len = std::strtoull(v, nullptr, 10);
    } else if (arg[0] != '-') {
      paths.push_back(arg);
    }
  }
  for (int sig : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL}) signal(sig, SaveInputAndDie);

  const std::vector<std::string> corpus = LoadCorpus(paths);
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& input : corpus) Run(input);
  std::mt19937_64 rng(seed);
  long long mutated = 0;
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  while ((runs >= 0 && mutated < runs) || (runs < 0 && elapsed() < max_total_time)) {
    Run(Mutate(corpus, rng, max_len));
    ++mutated;
  }
  std::fprintf(stderr,
               "replay_main: %zu corpus inputs replayed, %lld mutated inputs run in %.1f s\n",
               corpus.size(), mutated, elapsed());
  return 0;
}
