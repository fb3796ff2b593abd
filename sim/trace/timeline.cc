#include "sim/trace/timeline.h"

#include <algorithm>
#include <cstddef>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/event_format.h"
#include "sim/trace/named_format.h"

namespace stackcheck::sim {
namespace {

constexpr int kIndexWidth = 6;
constexpr int kTimeWidth = 11;

// Appends `text` padded or cut to exactly `width` characters.
void AppendCell(std::string* out, absl::string_view text, int width) {
  const std::size_t w = static_cast<std::size_t>(width);
  if (text.size() > w) {
    out->append(text.data(), w - 1);
    out->push_back('~');
  } else {
    out->append(text.data(), text.size());
    out->append(w - text.size(), ' ');
  }
}

}  // namespace

std::string Timeline(absl::Span<const Event> events, absl::Span<const std::string> actor_names,
                     const Violation* violation, const TimelineOptions& options) {
  const int width = std::max(options.column_width, 8);
  std::size_t actors = actor_names.size();
  bool anonymous = false;
  for (const Event& e : events) {
    if (e.actor == kNoActor) {
      anonymous = true;
    } else {
      actors = std::max<std::size_t>(actors, e.actor + 1);
    }
  }
  const std::size_t columns = actors + (anonymous ? 1 : 0);

  std::string out;
  const auto header_cell = [&](std::size_t column) {
    if (column == actors) return std::string("-");
    return column < actor_names.size() ? actor_names[column] : absl::StrCat("#", column);
  };
  AppendCell(&out, "#", kIndexWidth);
  AppendCell(&out, "time", kTimeWidth);
  for (std::size_t c = 0; c < columns; ++c) {
    out.append("| ");
    AppendCell(&out, header_cell(c), width);
  }
  out.erase(out.find_last_not_of(' ') + 1);
  out.push_back('\n');
  out.append(kIndexWidth + kTimeWidth + columns * (width + 2), '-');
  out.push_back('\n');

  for (std::size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    const bool marked = violation != nullptr && violation->event_index == i;
    AppendCell(&out, absl::StrCat(marked ? "!!" : "", i), kIndexWidth);
    AppendCell(&out, FormatTime(e.time_ns), kTimeWidth);
    const std::size_t column = e.actor == kNoActor ? actors : e.actor;
    const std::string text = FormatEventNamed(e, actor_names);
    for (std::size_t c = 0; c < columns; ++c) {
      out.append("| ");
      AppendCell(&out, c == column ? absl::string_view(text) : "", width);
    }
    // Trailing blanks carry no information.
    out.erase(out.find_last_not_of(' ') + 1);
    out.push_back('\n');
  }
  if (violation != nullptr) {
    absl::StrAppend(&out, "!! violation of ", violation->property, " at event ",
                    violation->event_index, ": ", violation->message, "\n");
  }
  return out;
}

}  // namespace stackcheck::sim
