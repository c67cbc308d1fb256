// SPDX-License-Identifier: MIT
// The lists of a visibility launch as its passes read them (VisibilityLists on the host; the
// layouts in gpu_layout.h): the near list (VisibilityPush::nearList), the facing pairs and the
// pairs left to the rays (VisibilityPush::facingList, FacingListHeader::traced), and the blocker
// rounds' area (NearVisibilityListHeader::rounds). Declared once for every pass that reads them.
#ifndef RSIM_VISIBILITY_LISTS_GLSL
#define RSIM_VISIBILITY_LISTS_GLSL
layout(buffer_reference, std430, buffer_reference_align = 16) buffer NearListRef {
    NearVisibilityListHeader header;
    NearVisibilityPair pairs[];
};
layout(buffer_reference, std430, buffer_reference_align = 16) buffer FacingListRef {
    FacingListHeader header;
    uint pairs[]; // rsimLaunchPairIndex
};
layout(buffer_reference, std430, buffer_reference_align = 16) buffer RoundsRef {
    BlockerRoundsHeader header;
    PairRays pairs[];
};
#endif
