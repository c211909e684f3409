// Every visitor write operation.
export { postComment } from "../features/comments/operations/post-comment.ts";
export { editComment } from "../features/comments/operations/edit-comment.ts";
export { deleteComment } from "../features/comments/operations/delete-comment.ts";
export { react } from "../features/comments/operations/react.ts";
export { unreact } from "../features/comments/operations/unreact.ts";
export { createPoll } from "../features/comments/operations/create-poll.ts";
export { vote } from "../features/comments/operations/vote.ts";
export { postLocation } from "../features/comments/operations/post-location.ts";
export { uploadMedia } from "../features/media/operations/upload-media.ts";
export { uploadAvatar } from "../features/visitors/operations/upload-avatar.ts";
export { deleteAvatar } from "../features/visitors/operations/delete-avatar.ts";
