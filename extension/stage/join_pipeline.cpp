// join_pipeline.cpp — drives mergepath::SqlJoin for one execution of a join node (see
// pipeline.h): main-stream chunks of both sides go to the stage (runs shipped and
// sorted on the GPU while reading), finish() sorts both sides and runs the vectorized
// sorted search of every A key in sorted B; the ranges are then copied out for the
// node to expand into pairs (B's sorted rows and flags at once, A's ranges by A row,
// piece by piece; sorted B's keys too, for a join whose outer side streams). B's row
// references ride through the sort in place of its row numbers when the node asks.
// Chunks of the other stream (rows whose key has a NULL) never match and are not the
// library's business.
#include "pipeline.h"

#include <memory>

namespace {

template <class K>
class MpKeyJoinPipeline final : public MpJoinPipeline {
public:
    MpKeyJoinPipeline(mergepath::Context* ctx, const MpJoinStageWants& wants)
        : MpJoinPipeline(ctx), carry_b_refs_(wants.b_refs) {
        join_.reset(new mergepath::SqlJoin<K>(*ctx));
        join_->set_want_b_match(wants.b_match);
        join_->set_keep_b_keys(wants.b_keys);
        join_->set_ranges_by_a_row(true);  // the node emits A in row order (join_combine.cpp)
        ++mp_live_pipelines;
    }
    ~MpKeyJoinPipeline() override { --mp_live_pipelines; }

    // B's references ride through the sort as its keys' values when asked for (A's keys
    // carry row numbers: its ranges go by A row).
    void add_chunk(MpKeyStream stream, mergepath::Side side, const void* keys, size_t n, bool ascending,
                   const uint64_t* refs) override {
        if (stream != MpKeyStream::Main) return;
        const bool carry = carry_b_refs_ && side == mergepath::Side::B;
        if (carry && !refs && n > 0) throw mergepath::Error("pg_mergepath: a chunk of B without row references");
        join_->add_chunk(side, static_cast<const K*>(keys), n, ascending, carry ? refs : nullptr);
    }
    void finish() override { join_->finish(); }
    void rebind(mergepath::Context* ctx) override {
        join_->rebind(*ctx);
        ctx_ = ctx;
    }
    mergepath::PipelineTimings timings() const override { return join_->timings(); }
    size_t side_rows(mergepath::Side side) const override { return join_->rows(side); }
    void download_ranges(const mergepath::JoinRangesOut& out) override { join_->download(out); }
    void download_ranges_by_a_row(uint64_t first_row, const mergepath::HostSpan* spans, size_t count) override {
        join_->download_by_a_row(first_row, spans, count);
    }
    void download_b_keys(void* out) override { join_->download_b_keys(static_cast<K*>(out)); }

private:
    std::unique_ptr<mergepath::SqlJoin<K>> join_;
    bool carry_b_refs_;
};

}  // namespace

MpJoinPipeline* mp_join_pipeline_new(int key_bits, mergepath::Context* ctx, const MpJoinStageWants& wants) {
    switch (key_bits) {
        case 32: return new MpKeyJoinPipeline<uint32_t>(ctx, wants);
        case 64: return new MpKeyJoinPipeline<uint64_t>(ctx, wants);
        case 128: return new MpKeyJoinPipeline<mergepath::Key128>(ctx, wants);
        default: throw mergepath::Error("pg_mergepath: unsupported key width");
    }
}
