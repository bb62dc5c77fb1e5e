// pipeline.cpp — drives mergepath::SqlSetOp<K> for one execution of a MergePath SetOp
// node: the reader encodes rows into batch(), flush() hands each full batch to the
// library (on the GPU it ships every 1 << 22 keys of a side as a run, copied and
// radix-sorted while reading goes on), finish() merges the runs (or sorts) and runs
// unique + Balanced Path. Pure C++: no PostgreSQL calls, everything may throw
// (callers use mp_try).
//
// GPU out of memory: a GPU pipeline is made with keep_host_copy (it may redo);
// redo_on() rebinds the SqlSetOp, which still holds every key on the host in its
// original order, to the CPU backend, and finish() runs again there.
#include "pipeline.h"

#include <memory>
#include <utility>
#include <vector>

int64_t mp_live_pipelines = 0;

namespace {
constexpr size_t kBatchKeys = size_t(1) << 18;
}

template <class K>
class MpKeyPipeline final : public MpPipeline {
public:
    MpKeyPipeline(mergepath::Context* ctx, bool intersect, bool all, bool with_rows, bool keep_host_copy)
        : MpPipeline(ctx, kBatchKeys, keep_host_copy),
          op_(intersect ? mergepath::SetOp::Intersection : mergepath::SetOp::Difference),
          all_(all),
          with_rows_(with_rows) {
        sql_.reset(new mergepath::SqlSetOp<K>(*ctx, op_, all_, with_rows_));
        batch_.resize(kBatchKeys);
        ++mp_live_pipelines;
    }
    ~MpKeyPipeline() override { --mp_live_pipelines; }

    void* batch() override { return batch_.data(); }

    void flush(mergepath::Side side, size_t n) override { sql_->add(side, batch_.data(), n); }

    void finish() override { sql_->finish(); }

    void redo_on(mergepath::Context* ctx, mergepath::Side side, size_t pending) override {
        sql_->rebind(*ctx);
        ctx_ = ctx;
        if (pending) sql_->add(side, batch_.data(), pending);
        keep_host_copy_ = false;
    }

    const mergepath::PipelineTimings& timings() const override { return sql_->timings(); }
    const mergepath::SqlSetOp<K>& sql() const { return *sql_; }

private:
    mergepath::SetOp op_;
    bool all_, with_rows_;
    std::unique_ptr<mergepath::SqlSetOp<K>> sql_;
    std::vector<K> batch_;
};

template <class K>
MpResults<K> mp_results(MpPipeline* pipeline) {
    const auto& sql = static_cast<MpKeyPipeline<K>*>(pipeline)->sql();
    MpResults<K> r{};
    r.result_keys = sql.result_keys().data();
    r.key_count = sql.result_keys().size();
    r.result_positions = sql.result_positions().data();
    r.position_count = sql.result_positions().size();
    const mergepath::Side sides[2] = {mergepath::Side::A, mergepath::Side::B};
    for (int s = 0; s < 2; ++s) {
        r.sorted_keys[s] = sql.sorted_keys(sides[s]).data();
        r.sorted_rows[s] = sql.sorted_rows(sides[s]).data();
        r.side_count[s] = sql.sorted_keys(sides[s]).size();
    }
    return r;
}

template MpResults<uint32_t> mp_results<uint32_t>(MpPipeline*);
template MpResults<uint64_t> mp_results<uint64_t>(MpPipeline*);
template MpResults<mergepath::Key128> mp_results<mergepath::Key128>(MpPipeline*);

MpPipeline* mp_pipeline_new(int key_bits, mergepath::Context* ctx, bool intersect, bool all, bool with_rows,
                            bool keep_host_copy) {
    switch (key_bits) {
        case 32: return new MpKeyPipeline<uint32_t>(ctx, intersect, all, with_rows, keep_host_copy);
        case 64: return new MpKeyPipeline<uint64_t>(ctx, intersect, all, with_rows, keep_host_copy);
        case 128: return new MpKeyPipeline<mergepath::Key128>(ctx, intersect, all, with_rows, keep_host_copy);
        default: throw mergepath::Error("pg_mergepath: unsupported key width");
    }
}
