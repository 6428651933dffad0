//! The fixed parts of a harness: device helpers, the kernel's frame around the
//! per-thread blocks, and the host program that launches, tallies and prints JSON.

use super::emit::SPIN_LIMIT;
use super::plan::Plan;
use super::HarnessOptions;
use crate::model::{Scenario, Space};

/// CUDA C string literal of `text`.
fn c_string(text: &str) -> String {
    let mut out = String::from("\"");
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// JSON string literal of `text`, as a C string literal (printed verbatim by the host).
fn json_in_c(text: &str) -> String {
    c_string(&serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into()))
}

const DEVICE_HELPERS: &str = r#"
__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
// Address of the same shared-memory offset in the CTA of cluster rank `rank`.
__device__ __forceinline__ unsigned peer_u32(unsigned a, unsigned rank) {
    unsigned r; asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(rank)); return r;
}
__device__ __forceinline__ void* peer_ptr(void* p, unsigned rank) {
    unsigned long long r; asm volatile("mapa.u64 %0, %1, %2;" : "=l"(r) : "l"(p), "r"(rank)); return (void*)r;
}
// Shared-memory matrix descriptor, no swizzle: 16-byte units; leading byte offset 128
// (next core matrix along K), stride byte offset 256 (next 8 rows).
__device__ __forceinline__ unsigned long long wgmma_desc(unsigned addr) {
    return (unsigned long long)((addr >> 4) & 0x3FFF) | ((unsigned long long)(128 >> 4) << 16)
         | ((unsigned long long)(256 >> 4) << 32);
}
__device__ __forceinline__ void cluster_sync_all() {
    __syncwarp();
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
// A weak load that keeps the line in L1, so a later weak load may hit the old value.
// Its value must be used (the caller stores the sum), or ptxas drops the load.
__device__ __forceinline__ int prime(unsigned* p) {
    int v; asm volatile("ld.global.ca.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory"); return v;
}
__device__ __forceinline__ unsigned next_random(unsigned& x) { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x; }
// All scenario threads of an instance meet (bounded), then each waits a random while.
__device__ __forceinline__ void start(bool lead, unsigned* meet, unsigned seed) {
    if (lead) {
        atomicAdd(meet, 1u);
        for (unsigned i = 0; i < SPIN_LIMIT && *(volatile unsigned*)meet < SCENARIO_THREADS; ++i) {}
        unsigned x = seed ^ (blockIdx.x * 0x9E3779B9u) ^ (threadIdx.x * 0x85EBCA6Bu) ^ 0x2545F491u;
        long long until = clock64() + (next_random(x) % MAX_DELAY);
        while (clock64() < until) {}
    }
    __syncwarp();
}
// Copies still in flight are waited for before the CTA may exit.
__device__ __forceinline__ void finish_async() {
    asm volatile("cp.async.wait_all;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
// Memory stress (the GPU litmus literature's technique): CTAs that hammer scratch lines
// while the instances run, until they finish or a bounded number of rounds.
__device__ void stress(unsigned* area, unsigned* done, unsigned total, unsigned seed) {
    unsigned x = seed ^ (blockIdx.x * 0x9E3779B9u) ^ threadIdx.x ^ 0x68E31DA4u;
    for (unsigned i = 0; i < STRESS_ROUNDS; ++i) {
        if ((i & 63) == 0 && *(volatile unsigned*)done >= total) break;
        unsigned idx = (next_random(x) % STRESS_LINES) * 32 + (threadIdx.x & 31);
        unsigned v = *(volatile unsigned*)&area[idx];
        *(volatile unsigned*)&area[idx] = v + 1;
    }
}
"#;

const HOST_MAIN: &str = r#"
#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); exit(2); } } while (0)

static std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

int main(int argc, char** argv) {
    unsigned long long trials = argc > 1 ? strtoull(argv[1], nullptr, 10) : TRIALS;
    unsigned instances = argc > 2 ? (unsigned)strtoul(argv[2], nullptr, 10) : INSTANCES;
    if (trials == 0 || instances == 0) { fprintf(stderr, "usage: %s [trials] [instances]\n", argv[0]); return 2; }
    unsigned long long launches = (trials + instances - 1) / instances;
    cudaDeviceProp prop; CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0; CHECK(cudaDriverGetVersion(&driver)); CHECK(cudaRuntimeGetVersion(&runtime));
    const unsigned instance_ctas = instances * CLUSTERS * CLUSTER_SIZE;
    const unsigned grid = STRESS_CLUSTERS * CLUSTER_SIZE + instance_ctas;
    std::vector<unsigned> init((size_t)instances * GLOBAL_WORDS, 0u);
    for (unsigned i = 0; i < instances; ++i)
        for (int g = 0; g < NGLOBALS; ++g) init[(size_t)i * GLOBAL_WORDS + GLOBAL_AT[g]] = (unsigned)GLOBAL_INIT[g];
    unsigned *gmem, *meet, *area, *done; Record* rec;
    CHECK(cudaMalloc(&gmem, init.size() * sizeof(unsigned)));
    CHECK(cudaMalloc(&meet, instances * sizeof(unsigned)));
    CHECK(cudaMalloc(&area, (size_t)STRESS_LINES * 32 * sizeof(unsigned)));
    CHECK(cudaMalloc(&done, sizeof(unsigned)));
    CHECK(cudaMalloc(&rec, instances * sizeof(Record)));
    CHECK(cudaMemset(area, 0, (size_t)STRESS_LINES * 32 * sizeof(unsigned)));
    std::vector<unsigned> final_mem(init.size());
    std::vector<Record> records(instances);
    std::map<std::string, unsigned long long> histogram;
    unsigned long long timeouts = 0;
    cudaEvent_t finished; CHECK(cudaEventCreateWithFlags(&finished, cudaEventDisableTiming));
    for (unsigned long long l = 0; l < launches; ++l) {
        CHECK(cudaMemcpy(gmem, init.data(), init.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
        CHECK(cudaMemset(meet, 0, instances * sizeof(unsigned)));
        CHECK(cudaMemset(done, 0, sizeof(unsigned)));
        CHECK(cudaMemset(rec, 0, instances * sizeof(Record)));
        litmus<<<grid, BLOCK_WARPS * 32>>>(gmem, rec, meet, area, done, (unsigned)(l * 2654435761ull + 12345u), instance_ctas);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(finished));
        // Watchdog: a harness that hangs the GPU is reported, never waited on forever.
        auto begun = std::chrono::steady_clock::now();
        while (cudaEventQuery(finished) == cudaErrorNotReady) {
            if (std::chrono::steady_clock::now() - begun > std::chrono::seconds(WATCHDOG_SECONDS)) {
                printf("{\"error\": \"kernel did not finish within %d s\"}\n", WATCHDOG_SECONDS);
                fflush(stdout);
                _exit(3);
            }
        }
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(final_mem.data(), gmem, final_mem.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(records.data(), rec, instances * sizeof(Record), cudaMemcpyDeviceToHost));
        for (unsigned i = 0; i < instances; ++i) {
            const Record& r = records[i];
            std::string key = "\"regs\": {";
            bool first = true;
            for (int s = 0; s < NREGS; ++s) {
                if (!((r.assigned >> s) & 1ull)) continue;
                key += (first ? "\"" : ", \"") + std::string(REG_NAMES[s]) + "\": " + std::to_string(r.regs[s]);
                first = false;
            }
            key += "}, \"mem\": {";
            first = true;
            for (int g = 0; g < NGLOBALS; ++g) {
                key += (first ? "\"" : ", \"") + std::string(GLOBAL_NAMES[g]) + "\": "
                     + std::to_string((int)final_mem[(size_t)i * GLOBAL_WORDS + GLOBAL_AT[g]]);
                first = false;
            }
            for (int m = 0; m < NSHARED; ++m) {
                key += (first ? "\"" : ", \"") + std::string(SHARED_NAMES[m]) + "\": " + std::to_string(r.mem[m]);
                first = false;
            }
            key += std::string("}, \"timeout\": ") + (r.timeout ? "true" : "false");
            timeouts += r.timeout ? 1 : 0;
            histogram[key] += 1;
        }
    }
    printf("{\"gpu\": \"%s\", \"cc\": \"%d.%d\", \"driver\": \"%s\", \"cuda\": \"%s\",\n", prop.name, prop.major, prop.minor,
           version_text(driver).c_str(), version_text(runtime).c_str());
    printf(" \"harness\": \"fencelab cuda\", \"scenario\": %s, \"trials\": %llu, \"instances\": %u, \"launches\": %llu,\n",
           SCENARIO_TITLE, launches * instances, instances, launches);
    printf(" \"timeouts\": %llu, \"opaque\": [%s],\n \"outcomes\": [", timeouts, OPAQUE_REGS);
    bool first = true;
    for (const auto& entry : histogram) {
        printf("%s\n  {%s, \"count\": %llu}", first ? "" : ",", entry.first.c_str(), entry.second);
        first = false;
    }
    printf("\n]}\n");
    return 0;
}
"#;

fn list<T: ToString>(items: &[T]) -> String {
    if items.is_empty() {
        return "0".into();
    }
    items.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}

/// The whole `.cu` file.
pub fn program(s: &Scenario, plan: &Plan, kernel_blocks: &str, options: &HarnessOptions) -> String {
    let title = s.title.clone().unwrap_or_else(|| "untitled scenario".into());
    let globals: Vec<(&str, u32, i64)> = s
        .locations
        .iter()
        .filter_map(|l| plan.global.get(&l.name).map(|w| (l.name.as_str(), *w, l.init)))
        .collect();
    let shared: Vec<(&str, usize, u32)> = s
        .locations
        .iter()
        .filter_map(|l| match l.space {
            Space::Shared(owner) => plan.smem.get(&l.name).map(|off| (l.name.as_str(), owner, *off)),
            Space::Global | Space::Tmem(_) => None,
        })
        .collect();
    let reg_names: Vec<String> = plan.slots.iter().map(|(t, r)| c_string(&format!("{t}:{r}"))).collect();
    let opaque: Vec<String> = s
        .threads
        .iter()
        .zip(&plan.threads)
        .flat_map(|(t, tp)| tp.regs.iter().filter(|r| r.opaque).map(move |r| format!("{}:{}", t.name, r.name)))
        .map(|name| serde_json::to_string(&name).unwrap_or_default())
        .collect();
    let clusters = plan.cluster_ctas.len().max(1);
    let cta_table: Vec<String> = plan
        .cluster_ctas
        .iter()
        .map(|ctas| {
            let row: Vec<String> =
                (0..plan.cluster_size as usize).map(|r| ctas.get(r).map_or("-1".into(), |c| c.to_string())).collect();
            format!("{{{}}}", row.join(", "))
        })
        .collect();

    let mut out = String::new();
    out.push_str(&format!("// Litmus harness generated by `fencelab cuda` for: {}\n", title.replace('\n', " ")));
    out.push_str(
        "// Build: nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -o harness harness.cu\n\
         // Run:   ./harness [trials] [instances]   (prints a JSON histogram of outcomes)\n\
         // Each instance is one copy of the scenario: scenario CTAs are CTAs of hardware clusters,\n\
         // scenario threads are warps whose lane 0 runs the program as inline PTX.\n",
    );
    out.push_str("#include <chrono>\n#include <cstdio>\n#include <cstdlib>\n#include <map>\n#include <string>\n#include <vector>\n#include <unistd.h>\n#include <cuda_runtime.h>\n\n");
    let constants = [
        ("CLUSTER_SIZE", plan.cluster_size.to_string()),
        ("CLUSTERS", clusters.to_string()),
        ("BLOCK_WARPS", plan.block_warps.to_string()),
        ("SCENARIO_THREADS", s.threads.len().to_string()),
        ("SMEM_BYTES", plan.smem_bytes.to_string()),
        ("GLOBAL_WORDS", plan.global_words.to_string()),
        ("NREGS", plan.slots.len().to_string()),
        ("NGLOBALS", globals.len().to_string()),
        ("NSHARED", shared.len().to_string()),
        ("SPIN_LIMIT", SPIN_LIMIT.to_string()),
        ("MAX_DELAY", "2048".into()),
        ("STRESS_CLUSTERS", (16 / plan.cluster_size).max(1).to_string()),
        ("STRESS_LINES", "4096".into()),
        ("STRESS_ROUNDS", "16384".into()),
        ("WATCHDOG_SECONDS", "20".into()),
    ];
    for (name, value) in constants {
        out.push_str(&format!("constexpr unsigned {name} = {value};\n"));
    }
    out.push_str(&format!("constexpr unsigned long long TRIALS = {};\n", options.trials));
    out.push_str(&format!("constexpr unsigned INSTANCES = {};\n", options.instances));
    out.push_str(&format!("static const char* SCENARIO_TITLE = {};\n", json_in_c(&title)));
    out.push_str(&format!("static const char* OPAQUE_REGS = {};\n", c_string(&opaque.join(", "))));
    out.push_str(&format!(
        "static const char* REG_NAMES[] = {{{}}};\n",
        if reg_names.is_empty() { "\"\"".to_string() } else { reg_names.join(", ") }
    ));
    let gnames: Vec<String> = globals.iter().map(|(n, _, _)| c_string(n)).collect();
    let snames: Vec<String> = shared.iter().map(|(n, _, _)| c_string(n)).collect();
    out.push_str(&format!("static const char* GLOBAL_NAMES[] = {{{}}};\n", if gnames.is_empty() { "\"\"".into() } else { gnames.join(", ") }));
    out.push_str(&format!("static const unsigned GLOBAL_AT[] = {{{}}};\n", list(&globals.iter().map(|g| g.1).collect::<Vec<_>>())));
    out.push_str(&format!("static const long long GLOBAL_INIT[] = {{{}}};\n", list(&globals.iter().map(|g| g.2).collect::<Vec<_>>())));
    out.push_str(&format!("static const char* SHARED_NAMES[] = {{{}}};\n", if snames.is_empty() { "\"\"".into() } else { snames.join(", ") }));
    out.push_str(&format!("__constant__ int CTA_OF[CLUSTERS][CLUSTER_SIZE] = {{{}}};\n", cta_table.join(", ")));
    out.push_str(&format!("__constant__ unsigned PHASES[CLUSTERS] = {{{}}};\n", list(&plan.cluster_phases)));
    out.push_str(&format!(
        "\nstruct Record {{ long long regs[{}]; unsigned long long assigned; int mem[{}]; int timeout; int primed; }};\n",
        plan.slots.len().max(1),
        shared.len().max(1)
    ));
    out.push_str(DEVICE_HELPERS);

    // The kernel frame.
    out.push_str(
        "\n__global__ void __cluster_dims__(CLUSTER_SIZE, 1, 1) __launch_bounds__(BLOCK_WARPS * 32)\n\
         litmus(unsigned* gmem, Record* records, unsigned* rendezvous, unsigned* area, unsigned* done, unsigned seed, unsigned instance_ctas) {\n\
         \x20   __shared__ __align__(128) unsigned char sm[SMEM_BYTES];\n\
         \x20   const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;\n\
         \x20   const unsigned cluster = blockIdx.x / CLUSTER_SIZE, rank = blockIdx.x % CLUSTER_SIZE;\n\
         \x20   if (cluster < STRESS_CLUSTERS) { stress(area, done, instance_ctas, seed); return; }\n\
         \x20   // An instance's clusters lie `instances` apart, so its CTAs land on different SMs\n\
         \x20   // (two CTAs of one SM share an L1, which hides stale reads).\n\
         \x20   const unsigned instances = instance_ctas / (CLUSTERS * CLUSTER_SIZE);\n\
         \x20   const unsigned inst = (cluster - STRESS_CLUSTERS) % instances, slot = (cluster - STRESS_CLUSTERS) / instances;\n\
         \x20   const int cta = CTA_OF[slot][rank];\n\
         \x20   unsigned* gm = gmem + (size_t)inst * GLOBAL_WORDS;\n\
         \x20   Record* rec = records + inst;\n\
         \x20   (void)lane; (void)gm; (void)rec;\n\
         \x20   for (unsigned i = threadIdx.x; i < SMEM_BYTES / 4; i += blockDim.x) ((unsigned*)sm)[i] = 0;\n\
         \x20   __syncthreads();\n\
         \x20   if (threadIdx.x == 0) {\n",
    );
    for (cta, _) in s.ctas.iter().enumerate() {
        let mut init = String::new();
        for (name, owner, off) in &shared {
            let value = s.locations.iter().find(|l| l.name == *name).map_or(0, |l| l.init);
            if *owner == cta && value != 0 {
                init.push_str(&format!(" *(int*)(sm + {off}) = {value};"));
            }
        }
        for m in s.mbarriers.iter().filter(|m| m.cta == cta) {
            if let (Some(count), Some(off)) = (m.count, plan.smem.get(&m.name)) {
                init.push_str(&format!(
                    " asm volatile(\"mbarrier.init.shared::cta.b64 [%0], {count};\" :: \"r\"(smem_u32(sm + {off})) : \"memory\");"
                ));
            }
        }
        if !init.is_empty() {
            out.push_str(&format!("        if (cta == {cta}) {{{init} }}\n"));
        }
    }
    out.push_str(
        "        asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n\
         \x20       asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\");\n\
         \x20   }\n\
         \x20   __syncthreads();\n\
         \x20   cluster_sync_all();\n\
         \x20   bool ran = false;\n",
    );
    out.push_str(kernel_blocks);
    out.push_str(
        "    if (!ran) { // idle warps and padding CTAs keep the cluster barrier's count\n\
         \x20       for (unsigned p = 0; p < PHASES[slot]; ++p) cluster_sync_all();\n\
         \x20   }\n\
         \x20   cluster_sync_all();\n\
         \x20   if (threadIdx.x == 0) {\n",
    );
    for (m, (_, owner, off)) in shared.iter().enumerate() {
        out.push_str(&format!("        if (cta == {owner}) rec->mem[{m}] = *(volatile int*)(sm + {off});\n"));
    }
    out.push_str("        atomicAdd(done, 1u);\n    }\n}\n");
    out.push_str(HOST_MAIN);
    out
}
