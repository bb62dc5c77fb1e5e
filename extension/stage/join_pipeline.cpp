// join_pipeline.cpp — drives mergepath::SqlJoin for one execution of a join node (see
// pipeline.h): main-stream chunks of both sides go to the stage (runs shipped and
// sorted on the GPU while reading), finish() sorts both sides and runs the vectorized
// sorted search of every A key in sorted B; the ranges are then copied out for the
// node to expand into pairs (B's sorted rows and flags at once, A's ranges by A row,
// piece by piece; sorted B's keys too, for a join whose outer side streams). Chunks of the other stream (rows whose key has a NULL)
// never match and are not the library's business.
#include "pipeline.h"

#include <memory>

namespace {

template <class K>
class MpKeyJoinPipeline final : public MpJoinPipeline {
public:
    MpKeyJoinPipeline(mergepath::Context* ctx, bool want_b_match, bool keep_b_keys) : MpJoinPipeline(ctx) {
        join_.reset(new mergepath::SqlJoin<K>(*ctx));
        join_->set_want_b_match(want_b_match);
        join_->set_keep_b_keys(keep_b_keys);
        join_->set_ranges_by_a_row(true);  // the node emits A in row order (join_combine.cpp)
        ++mp_live_pipelines;
    }
    ~MpKeyJoinPipeline() override { --mp_live_pipelines; }

    void add_chunk(MpKeyStream stream, mergepath::Side side, const void* keys, size_t n, bool ascending) override {
        if (stream == MpKeyStream::Main) join_->add_chunk(side, static_cast<const K*>(keys), n, ascending);
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
};

}  // namespace

MpJoinPipeline* mp_join_pipeline_new(int key_bits, mergepath::Context* ctx, bool want_b_match, bool keep_b_keys) {
    switch (key_bits) {
        case 32: return new MpKeyJoinPipeline<uint32_t>(ctx, want_b_match, keep_b_keys);
        case 64: return new MpKeyJoinPipeline<uint64_t>(ctx, want_b_match, keep_b_keys);
        case 128: return new MpKeyJoinPipeline<mergepath::Key128>(ctx, want_b_match, keep_b_keys);
        default: throw mergepath::Error("pg_mergepath: unsupported key width");
    }
}
