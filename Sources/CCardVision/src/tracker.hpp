// tracker.hpp — one card holder's tracker: search, track, pose, photometry,
// and the best front-on still.
#pragma once

#include "liveness.hpp"
#include "still.hpp"

#include <deque>
#include <memory>

namespace cardvision {

class Tracker {
public:
    explicit Tracker(const hkcv_config &config);

    void reset();
    void set_card_type(hkcv_card_type t) { config_.card_type = t; }
    // image has been validated.
    void process(const hkcv_image &image, int64_t pts_ns, hkcv_measurement &out);

    const LivenessEvidence &liveness() const { return liveness_; }
    void restart_material() { liveness_.restart_material(); }

    // The kept still, or null; it stays valid after the tracker moves on.
    std::shared_ptr<Still> still() const { return still_; }
    void clear_still() {
        still_.reset();
        still_score_ = -1e9;
    }

private:
    // What one frame's stages share: its luma and size, the focal lengths
    // (the configured one and the one in use), and whether the last
    // frame's glare washed the card's print out.
    struct FrameView {
        // The luma the card is searched for, followed and fitted on (a
        // washed-out frame's stretched, contrast.cpp), and the luma as it
        // came, which its glare, sharpness and material are measured on.
        cv::Mat luma, seen_luma;
        LevelHistogram levels;  // of seen_luma (levels_in_view)
        cv::Size size;
        double focal = 0, focal_cfg = 0;
        bool washed_out = false;
    };
    // This frame's card as the stages find and correct it.
    struct Located {
        std::optional<Refinement> fit;
        bool by_print = false;   // found by following the print (not by a search)
        bool confirmed = false;  // a re-check ranked the tracked quad first
    };
    // Time since the card last committed, and whether this frame follows on from it.
    struct Motion {
        double dt = 0;
        bool continuous = false;
    };
    // The stages of process(), in order.
    FrameView begin_frame(const hkcv_image &image);
    // The card followed from the last frame (track), else searched for
    // around where it was.
    Located locate(const FrameView &f);
    // Now and then, the neighbourhood of the followed card searched afresh:
    // a better-ranked quad (the whole card round a box printed on it, or
    // the card with a side pulled back in) replaces it.
    void recheck(const FrameView &f, Located &found);
    // The whole frame searched when nothing was found, sparsely once the
    // card has been missing for a while (kTrack's cadences).
    void search_when_due(const FrameView &f, Located &found, hkcv_measurement &out);
    // A much smaller quad inside the card just followed: a box printed on it.
    bool shrank_onto_print(const Quad &q, int64_t pts_ns) const;
    // An outline no card projects to with a faint side restored.
    void correct_sides(const FrameView &f, Located &found);
    void place_hidden(const FrameView &f, Located &found) const;
    // The found quad becomes the card followed (flow, print-carried quad,
    // last quads).
    Motion commit(const FrameView &f, const Located &found, int64_t pts_ns);
    // The two poses the card allows at the focal length in use, the
    // reported one first (and the focal length estimated from them).
    PoseSolutions poses_of(const FrameView &f, const Quad &q);
    // Pose, speed, photometry, liveness evidence and the still.
    void measure(const hkcv_image &image, const FrameView &f, const Refinement &found, Motion motion,
                 int64_t pts_ns, hkcv_measurement &out);

    std::optional<Refinement> track(const cv::Mat &luma, double focal);
    // A search of roi: the best outline found (find), widened to the card's
    // edges where its sides lie on print inside them.
    std::optional<Refinement> search(const cv::Mat &luma, cv::Rect roi, double focal);
    // What every search of this tracker asks (detect_card): roi at the
    // frame's search size, with this frame's glare level.
    SearchRequest search_request(cv::Rect roi, double focal) const;
    // The card in roi, fitted at full size: the best outline of its edges
    // (find_in_edges), or a card found through the page's print when that
    // outline shows no face (card_through_print).
    std::optional<Refinement> find(const cv::Mat &luma, cv::Rect roi, double focal);
    // The best outline of roi that holds at full size: the fine look's best
    // (a card inside it instead, card_inside; a card closed by its shape
    // that outranks it, card_closed_by_shape; one showing a face first,
    // prefer_a_portrait; confirm_best), else the coarse look's near card,
    // the fine look's quads on lines joined across a gap, or an upright card
    // (look_coarsely).
    std::optional<Refinement> find_in_edges(const cv::Mat &luma, cv::Rect roi, double focal);
    std::optional<Refinement> card_through_print(const cv::Mat &luma, cv::Rect roi, double focal, const Quad &found);
    // The search at detect_long_side: its quads held landscape, best first,
    // an upright best set aside, and the best U closed where the card's
    // shape says (ranked apart).
    struct FineLook {
        std::vector<Detection> found;
        std::optional<Detection> upright;
        std::optional<Detection> shaped;
    };
    FineLook look_finely(const cv::Mat &luma, cv::Rect roi, double focal);
    // The fine look's best fitted at full size; when a best cut by the frame
    // did not hold on this search and the last, the next other object.
    std::optional<Refinement> confirm_best(const cv::Mat &luma, const std::vector<Detection> &found,
                                           bool refused_before, double focal);
    std::optional<Refinement> look_coarsely(const cv::Mat &luma, cv::Rect roi, double focal, const FineLook &fine);
    std::optional<Refinement> confirm(const cv::Mat &luma, const Detection &d, double focal);
    // A card found inside the search's best when that is a large outline
    // (a screen held near) and better outlined than it, fitted at full size.
    std::optional<Refinement> card_inside(const cv::Mat &luma, double focal, const Detection &outline);
    // Whether the fine look's U closed by the card's shape outranks the
    // look's best; that quad fitted at full size, unless a side of the fit
    // runs on past a corner (card_closed_by_shape).
    static bool shaped_outranks(const FineLook &fine);
    std::optional<Refinement> card_closed_by_shape(const cv::Mat &luma, double focal, const Detection &shaped);
    // Of the search's best quads, the first whose portrait shows a face is
    // put first, when the best's could show one and does not.
    void prefer_a_portrait(const cv::Mat &luma, std::vector<Detection> &found);
    // The coarse look's quad fitted at full size, else at half size (a near
    // card out of focus).
    std::optional<Refinement> confirm_near(const cv::Mat &luma, const Detection &d, double focal);
    // At a re-check that keeps the tracked quad: the re-check's best (else
    // the best of a search that also closes a card beyond its legs' ends)
    // fitted at full size, when it is the tracked quad with one side
    // pulled in (pulls_a_side_in); nullopt otherwise.
    std::optional<Refinement> side_pulled_in(const cv::Mat &luma, cv::Rect roi, int long_side, double focal,
                                             const std::vector<Detection> &found, const Quad &tracked);
    // A tracked fit with a side pulled in from where the print's motion
    // predicted it, put back out; nullopt when nothing was pulled in (or
    // nothing could be put back).
    std::optional<Refinement> hold_sides_pulled_in(const cv::Mat &luma, const Quad &predicted, const Refinement &fit,
                                                   double focal);
    // A tracked fit with a side the edges hold outside where the print
    // carried the card (carried_), refitted there; nullopt when every side
    // agrees (or nothing could be refitted there).
    std::optional<Refinement> back_to_print(const cv::Mat &luma, const Refinement &fit, double focal);
    // Where a guess to be fitted comes from, which decides how the fit
    // treats a side it cannot find (refine_quad, refine_shaped_quad).
    enum class Guess {
        searched,         // a search's quad, or a prediction: every side is fitted
        carried,          // moved by the print's flow: a side leaning away from it keeps its line
        closed_by_shape,  // one side placed by the card's shape: it keeps its line when it has no edge
    };
    // The guess fitted to the edges within radius, then again narrowly;
    // nullopt when the fit fails or is no card for this camera.
    std::optional<Refinement> polish(const cv::Mat &luma, const Quad &guess, float radius, double focal,
                                     Guess kind = Guess::searched);
    // Card-shaped for this camera, and not too small to measure.
    static bool plausible(const Quad &q, const cv::Mat &luma, double focal);
    void lose();
    void keep_still_if_better(const hkcv_image &image, const Quad &q, double score, int64_t pts);

    hkcv_config config_;
    std::shared_ptr<FaceFinder> faces_;

    // Tracking state. What it is counted against (the re-check interval,
    // the sparse search's cadence, the restore wait, the glare gate, the
    // carried quad's frames, the speed window) is in TrackParams (kTrack,
    // tracker.cpp) with every other threshold of following the card.
    bool tracking_ = false;
    Quad quad_{}, prev_quad_{};
    bool has_prev_quad_ = false;
    // Frames between re-checks: kTrack.recheck_frames (set by the
    // constructor and lose()), multiplied as re-checks confirm the card.
    int recheck_every_;
    bool side_pulled_in_ = false;  // the last re-check pulled a side in (side_pulled_in)
    int misses_ = 0;  // frames since the card was last found
    int since_search_ = 0;  // frames since the whole frame was last searched
    ViewChange view_change_;
    bool cut_best_refused_ = false;  // the last search's best ran off the frame and did not hold (find)
    bool has_recent_ = false;  // quad_ and last_pts_ hold a card found since the last reset
    int since_recheck_ = 0;
    bool was_cut_ = false;  // the last frame's card had a corner beyond the frame
    // Frames left before an outline no card projects to is looked at again
    // (restore_faint_side), after a look that could not put it right.
    int restore_wait_ = 0;
    float last_glare_ = 0;  // the last frame's glare fraction on the card
    int glare_level_ = 255;  // luma at which this frame saturates, in its own range (glare_luma converted)
    int search_glare_level_ = 255;  // the same level in the stretched luma (FrameView::luma)
    int64_t last_pts_ = 0;
    cv::Size frame_size_;
    cv::Mat luma_scratch_;
    cv::Mat half_luma_;  // a blurred near card's edges are fitted at half size
    Chroma chroma_;  // this frame's, wrapped; empty outside process()
    std::array<cv::Mat, 2> nv12_chroma_;  // an NV12 frame's colour planes, split (chroma_of)
    cv::Mat stretched_luma_;  // a washed-out frame's luma, stretched (FrameView::luma)
    std::array<cv::Mat, 2> stretched_chroma_;  // and its colour planes, which chroma_ then holds
    TextureFlow flow_;
    PhotometryScratch photometry_;
    RefineScratch refine_;
    // The card's quad as the print alone has carried it (TextureFlow::carry)
    // from where a re-check last confirmed it, and for how many frames.
    std::optional<Quad> carried_;
    int carried_frames_ = 0;
    // The sides the search's quad had widened to the card's edge
    // (widen_to_card_edge), held there against the print inside it
    // whatever the outline's shape.
    std::array<bool, 4> widened_{};

    // Pose state.
    OneEuroFilter yaw_f_, pitch_f_, roll_f_;
    struct PoseSample {
        int64_t pts_ns;
        // The pose the speed follows (turning_pose), filtered as the
        // reported one is, and as measured on the frame.
        double yaw, pitch, roll;
        double raw_yaw, raw_pitch, raw_roll;
    };
    std::deque<PoseSample> pose_history_;  // the poses of the last kTrack.speed_window_ns
    // The pose the speed follows (turning_pose): of the two a quad allows,
    // the one nearer the last frame's while its RMS reprojection error is
    // within kTrack.ambiguous_pose_px of the better one's; else the pose
    // measured.
    OneEuroFilter turn_yaw_f_, turn_pitch_f_, turn_roll_f_;
    Pose turning_pose(const PoseSolutions &poses) const;
    // The card's angular speed over pose_history_ (degrees per second).
    double angular_speed() const;
    FocalEstimator focal_;

    LivenessEvidence liveness_;

    // Where the frame being processed spends its time (hkcv_stage_ms).
    hkcv_stage_ms stages_{};

    // The best front-on view so far, and how good it was.
    std::shared_ptr<Still> still_;
    double still_score_ = -1e9;
};

}  // namespace cardvision
