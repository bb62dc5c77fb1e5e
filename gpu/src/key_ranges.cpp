// key_ranges.cpp — plan_key_ranges (key_ranges.h): the samples sorted, then walked one
// key value at a time, closing a range before a value that would overfill it, and
// right after a value that fills one alone.
#include "mergepath/key_ranges.h"

#include <algorithm>

#include "backends.h"

namespace mergepath {

template <class K>
std::vector<K> plan_key_ranges(std::vector<K> samples, uint64_t step, uint64_t target_keys) {
    std::sort(samples.begin(), samples.end());
    std::vector<K> bounds;
    uint64_t in_range = 0;  // estimated keys of the range being filled
    for (size_t i = 0; i < samples.size();) {
        size_t j = i;
        while (j < samples.size() && samples[j] == samples[i]) ++j;
        uint64_t weight = uint64_t(j - i) * step;  // estimated copies of this key value
        if (in_range > 0 && in_range + weight > target_keys) {
            bounds.push_back(samples[i - 1]);
            in_range = 0;
        }
        in_range += weight;
        if (in_range >= target_keys) {
            bounds.push_back(samples[i]);
            in_range = 0;
        }
        i = j;
    }
    return bounds;
}

#define INSTANTIATE_KEY_RANGES(K) template std::vector<K> plan_key_ranges<K>(std::vector<K>, uint64_t, uint64_t);
MERGEPATH_FOR_EACH_KEY(INSTANTIATE_KEY_RANGES)

}  // namespace mergepath
