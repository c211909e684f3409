// The canonical signature arrays by their names in the contract table, from the operations
// that declare them (what a client signs, built the same way).
import { queryCommentsArray } from "../../src/features/comments/comments.ts";
import { postCommentArray } from "../../src/features/comments/operations/post-comment.ts";
import { editCommentArray } from "../../src/features/comments/operations/edit-comment.ts";
import { deleteCommentArray } from "../../src/features/comments/operations/delete-comment.ts";
import { createPollArray } from "../../src/features/comments/operations/create-poll.ts";
import { reactArray } from "../../src/features/comments/operations/react.ts";
import { unreactArray } from "../../src/features/comments/operations/unreact.ts";
import { voteArray } from "../../src/features/comments/operations/vote.ts";
import { locateArray } from "../../src/features/comments/operations/post-location.ts";
import { uploadArray } from "../../src/features/media/operations/upload-media.ts";
import { uploadAvatarArray } from "../../src/features/visitors/operations/upload-avatar.ts";
import { deleteAvatarArray } from "../../src/features/visitors/operations/delete-avatar.ts";

export const signatureArrays = {
  queryComments: queryCommentsArray,
  postComment: postCommentArray,
  editComment: editCommentArray,
  deleteComment: deleteCommentArray,
  createPoll: createPollArray,
  react: reactArray,
  unreact: unreactArray,
  vote: voteArray,
  locate: locateArray,
  upload: uploadArray,
  uploadAvatar: uploadAvatarArray,
  deleteAvatar: deleteAvatarArray,
};
